/* The trace2 command's system calls on POSIX (see sys.h). */
#ifndef _WIN32
#include "sys.h"

#include <fcntl.h>
#include <sys/stat.h>

void t2_sys_binary_stdio(void)
{
	/* POSIX streams are bytes already */
}

int t2_sys_open_read(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC);
}

int t2_sys_open_write(const char *path, int create)
{
	return open(path, O_WRONLY | (create ? O_CREAT | O_EXCL : 0) | O_CLOEXEC, 0666);
}

int t2_sys_regular_fd(int fd, struct t2_file_id *id)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	id->size = (uint64_t)st.st_size;
	return 1;
}
#endif
