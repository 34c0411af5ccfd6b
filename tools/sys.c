/* The trace2 command's system calls on POSIX (see sys.h). */
#ifndef _WIN32
#include "sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int t2_sys_utf8_args(int *argc, char ***argv)
{
	/* POSIX arguments are the bytes the caller gave, UTF-8 or not */
	(void)argc;
	(void)argv;
	return 0;
}

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

int t2_sys_path_kind(const char *path, enum t2_path_kind *kind)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		*kind = T2_PATH_DIR;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		*kind = T2_PATH_REGULAR;
		return 0;
	}
	*kind = T2_PATH_OTHER;
	return access(path, R_OK);
}

int t2_sys_list_dir(const char *path, void (*fn)(void *ctx, const char *name), void *ctx)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		fn(ctx, de->d_name);
	closedir(d);
	return 0;
}

int t2_sys_remove(const char *path)
{
	return unlink(path);
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
