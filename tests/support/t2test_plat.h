/* What t2test.c asks of the platform's half of the helpers
 * (t2test_posix.c, t2test_win32.c). */
#ifndef T2TEST_PLAT_H
#define T2TEST_PLAT_H

#include <stddef.h>

/*
 * What t2_read_file() read (text NULL: unreadable; else *len bytes and a
 * NUL) passes through here; returns the text its caller gets, with *len
 * updated.  POSIX: text as it is.  Windows: the runner's reads are
 * recorded, and a scenario's process replaying the test gets the
 * runner's text instead of reading (t2test_win32.c).
 */
char *t2_plat_read_result(char *text, size_t *len);

#endif
