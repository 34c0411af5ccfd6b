/*
 * The trace2 command's calls whose form differs between POSIX (sys.c)
 * and Windows (sys_win32.c, built with mingw-w64): the arguments, opening,
 * listing and removing files, telling which file a descriptor is, binary
 * standard streams.  Each of the two files is whole for its system and
 * empty on the other.  The listener of validate --listen has its own pair
 * (listen.c, listen_win32.c).
 *
 * Paths and arguments are bytes on POSIX, and UTF-8 on Windows, where
 * paths go to the system in UTF-16: a path there that is not UTF-8 fails
 * with EILSEQ, one longer than Windows' 32767 units with ENAMETOOLONG.
 */
#ifndef T2_SYS_H
#define T2_SYS_H

#include <stdint.h>

/* Which file a descriptor is: its device and file number, and size. */
struct t2_file_id {
	uint64_t dev, ino, size;
};

/* On Windows, *argc and *argv become the command line's arguments in
 * UTF-8 (Windows keeps them in UTF-16; the C library's are in the ANSI
 * code page); on POSIX they stay as they are.  0, or -1 when the
 * arguments cannot be read (one is not Unicode). */
int t2_sys_utf8_args(int *argc, char ***argv);

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

enum t2_path_kind {
	T2_PATH_REGULAR,
	T2_PATH_DIR,
	T2_PATH_OTHER /* a FIFO or a device */
};

/* What path names, links followed: 0 with *kind set, or -1 with errno
 * set.  A path of kind T2_PATH_OTHER is checked readable too, without
 * being opened (a FIFO opened and closed would lose its writer). */
int t2_sys_path_kind(const char *path, enum t2_path_kind *kind);

/* Each name in the directory path ("." and ".." too, in no order) handed
 * to fn with ctx: 0, or -1 with errno set (EILSEQ: a name that is not
 * Unicode, on Windows). */
int t2_sys_list_dir(const char *path, void (*fn)(void *ctx, const char *name), void *ctx);

/* path (not a directory) removed: 0, or -1 with errno set. */
int t2_sys_remove(const char *path);

/* Whether fd is a regular file; *id then says which, and its size. */
int t2_sys_regular_fd(int fd, struct t2_file_id *id);

#endif
