/* The trace2 command's system calls on Windows (see sys.h): paths in
 * UTF-8, handed to the system's wide (UTF-16) calls. */
#ifdef _WIN32
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <sys/stat.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>

#include "alloc.h"

/* Windows' longest path in UTF-16 units, its NUL included. */
#define WPATH_MAX 32768

/* path (UTF-8) into out (WPATH_MAX units): 0, or -1 with errno set. */
static int wide_path(const char *path, wchar_t *out)
{
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, out, WPATH_MAX))
		return 0;
	errno = GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
	return -1;
}

/* s (UTF-16) into out (size bytes) in UTF-8: 0, or -1 with errno set. */
static int utf8_into(const wchar_t *s, char *out, int size)
{
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, s, -1, out, size, NULL, NULL))
		return 0;
	errno = GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
	return -1;
}

/* s (UTF-16) in UTF-8, allocated; NULL when s is not Unicode. */
static char *utf8_dup(const wchar_t *s)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, s, -1, NULL, 0, NULL, NULL);
	char *p;

	if (n <= 0)
		return NULL;
	p = t2_realloc(NULL, (size_t)n);
	if (utf8_into(s, p, n)) {
		free(p);
		return NULL;
	}
	return p;
}

int t2_sys_utf8_args(int *argc, char ***argv)
{
	int i, n;
	wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
	char **args;

	if (!wargv)
		return -1;
	args = t2_calloc((size_t)n + 1, sizeof(*args));
	for (i = 0; i < n && (args[i] = utf8_dup(wargv[i])); i++)
		;
	LocalFree(wargv);
	if (i < n) {
		while (i--)
			free(args[i]);
		free(args);
		return -1;
	}
	*argc = n;
	*argv = args;
	return 0;
}

void t2_sys_binary_stdio(void)
{
	_setmode(0, _O_BINARY);
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
}

static int open_wide(const char *path, int flags)
{
	wchar_t wpath[WPATH_MAX];

	if (wide_path(path, wpath))
		return -1;
	return _wopen(wpath, flags | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
}

int t2_sys_open_read(const char *path)
{
	return open_wide(path, _O_RDONLY);
}

int t2_sys_open_write(const char *path, int create)
{
	return open_wide(path, _O_WRONLY | (create ? _O_CREAT | _O_EXCL : 0));
}

/* errno for a failed GetFileAttributesExW(). */
static int errno_of_attributes(DWORD err)
{
	switch (err) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_BAD_NET_NAME:
	case ERROR_BAD_PATHNAME:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}

/* Whether the UTF-16 path names a named pipe (\\.\pipe\NAME, either
 * separator). */
static int is_pipe_name(const wchar_t *p)
{
	return (p[0] == L'\\' || p[0] == L'/') && (p[1] == L'\\' || p[1] == L'/') &&
	       p[2] == L'.' && (p[3] == L'\\' || p[3] == L'/') && !_wcsnicmp(p + 4, L"pipe", 4) &&
	       (p[8] == L'\\' || p[8] == L'/') && p[9];
}

/* A path Windows has no attributes for may still be a device (NUL,
 * CON) or a named pipe: T2_PATH_OTHER, a pipe by its name alone, since
 * opening it would take one of its server's instances.  0, or -1 when
 * it is neither. */
static int device_kind(const wchar_t *wpath, enum t2_path_kind *kind)
{
	HANDLE h;
	DWORD type;

	if (!is_pipe_name(wpath)) {
		h = CreateFileW(wpath, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
				OPEN_EXISTING, 0, NULL);
		if (h == INVALID_HANDLE_VALUE)
			return -1;
		type = GetFileType(h);
		CloseHandle(h);
		if (type != FILE_TYPE_CHAR && type != FILE_TYPE_PIPE)
			return -1;
	}
	*kind = T2_PATH_OTHER;
	return 0;
}

/* A path Windows has attributes for is a directory or a file; devices
 * and pipes have none. */
int t2_sys_path_kind(const char *path, enum t2_path_kind *kind)
{
	wchar_t wpath[WPATH_MAX];
	WIN32_FILE_ATTRIBUTE_DATA fa;
	DWORD err;

	if (wide_path(path, wpath))
		return -1;
	if (!GetFileAttributesExW(wpath, GetFileExInfoStandard, &fa)) {
		err = GetLastError();
		if (!device_kind(wpath, kind))
			return 0;
		errno = errno_of_attributes(err);
		return -1;
	}
	*kind = fa.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? T2_PATH_DIR : T2_PATH_REGULAR;
	return 0;
}

int t2_sys_list_dir(const char *path, void (*fn)(void *ctx, const char *name), void *ctx)
{
	wchar_t wpath[WPATH_MAX];
	/* a name's UTF-16 unit is 3 UTF-8 bytes at most */
	char name[sizeof(((struct _wdirent *)0)->d_name) / sizeof(wchar_t) * 3];
	struct _wdirent *de;
	_WDIR *d;
	int ret = 0, err = 0;

	if (wide_path(path, wpath) || !(d = _wopendir(wpath)))
		return -1;
	while (!ret && (de = _wreaddir(d)))
		if (!(ret = utf8_into(de->d_name, name, (int)sizeof(name))))
			fn(ctx, name);
		else
			err = errno;
	_wclosedir(d);
	if (ret)
		errno = err;
	return ret;
}

int t2_sys_remove(const char *path)
{
	wchar_t wpath[WPATH_MAX];

	return wide_path(path, wpath) ? -1 : _wunlink(wpath);
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
