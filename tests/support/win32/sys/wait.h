/* POSIX's wait statuses for the Windows build of the tests
 * (tests/support/win32/t2posix.h): t2test_win32.c reports an exit code
 * c as c << 8 and an exception as the signal POSIX would have sent. */
#ifndef T2_SYS_WAIT_H
#define T2_SYS_WAIT_H
#include "t2posix.h"
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s) ((s) & 0x7f)
#define WNOHANG 1
int waitpid(int pid, int *status, int options);
#endif
