/*
 * What the fuzzers do differently on POSIX (fz_plat_posix.c) and on
 * Windows (fz_plat_win32.c, the replay of the mingw-w64 build under
 * Wine, where the POSIX names the test helpers use come from
 * tests/support/win32/t2posix.h).  Included by fuzz.h.
 */
#ifndef T2_FZ_PLAT_H
#define T2_FZ_PLAT_H

#include <stddef.h>

#ifdef _WIN32
#define FZ_WINDOWS 1
#define FZ_NULL_DEVICE "NUL"
#else
#define FZ_WINDOWS 0
#define FZ_NULL_DEVICE "/dev/null"
#endif

/* Set the environment variable name to value; NULL: remove it. */
void fz_setenv(const char *name, const char *value);

/* Where fz_tempdir() makes its directory: $TMPDIR if set, else the
 * system's place for scratch files. */
const char *fz_temp_base(void);

/* mkdtemp(): templ ends in "XXXXXX", replaced by the name made. */
char *fz_mkdtemp(char *templ);

/* A duplicate of fd, numbered 3 or more, not inherited by children. */
int fz_dup_private(int fd);

/* Limit the size of every file this process writes to max bytes, when
 * the system can (1; 0: it cannot). */
int fz_limit_file_size(size_t max);

/* Two connected descriptors that keep the bounds of what is written
 * (SOCK_SEQPACKET, a message-mode pipe): fds[1] reads what fds[0]
 * writes, one fz_send_packet() a read; -1 when they cannot be made. */
int fz_packet_pair(int fds[2]);
/* Write data[0..n) to fd as one packet; the bytes written, or -1. */
long fz_send_packet(int fd, const void *data, size_t n);

#endif
