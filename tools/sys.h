/*
 * The trace2 command's calls whose form differs between POSIX (sys.c)
 * and Windows (sys_win32.c, built with mingw-w64): opening files,
 * telling which file a descriptor is, binary standard streams.  Each of
 * the two files is whole for its system and empty on the other.  The
 * listener of validate --listen has its own pair (listen.c,
 * listen_win32.c).
 */
#ifndef T2_SYS_H
#define T2_SYS_H

#include <stdint.h>

/* Which file a descriptor is: its device and file number, and size. */
struct t2_file_id {
	uint64_t dev, ino, size;
};

/* Standard input, output and error as bytes (Windows: no CRLF for LF,
 * no end of file at ^Z), before anything is read or written. */
void t2_sys_binary_stdio(void);

/* path opened to read, in binary mode, not inherited by children: a
 * descriptor, or -1 with errno set. */
int t2_sys_open_read(const char *path);

/* path opened to write, in binary mode, not inherited, not emptied:
 * create: a new file (EEXIST if there is one); else an existing file.  A
 * descriptor, or -1 with errno set. */
int t2_sys_open_write(const char *path, int create);

/* Whether fd is a regular file; *id then says which, and its size. */
int t2_sys_regular_fd(int fd, struct t2_file_id *id);

#endif
