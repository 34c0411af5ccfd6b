/* The trace2 command's system calls on Windows (see sys.h). */
#ifdef _WIN32
#include "sys.h"

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

void t2_sys_binary_stdio(void)
{
	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
}

int t2_sys_open_read(const char *path)
{
	return _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
}

int t2_sys_open_write(const char *path, int create)
{
	return _open(path, _O_WRONLY | (create ? _O_CREAT | _O_EXCL : 0) | _O_BINARY | _O_NOINHERIT,
		     _S_IREAD | _S_IWRITE);
}

/* The volume's serial number and the file index: the C library's
 * st_ino is 0 on Windows. */
int t2_sys_regular_fd(int fd, struct t2_file_id *id)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	BY_HANDLE_FILE_INFORMATION bi;

	if (h == INVALID_HANDLE_VALUE || GetFileType(h) != FILE_TYPE_DISK ||
	    !GetFileInformationByHandle(h, &bi) || (bi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
		return 0;
	id->dev = bi.dwVolumeSerialNumber;
	id->ino = (uint64_t)bi.nFileIndexHigh << 32 | bi.nFileIndexLow;
	id->size = (uint64_t)bi.nFileSizeHigh << 32 | bi.nFileSizeLow;
	return 1;
}
#endif
