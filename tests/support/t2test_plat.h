/* What t2test.c and the Windows build's POSIX names ask of the platform's
 * half of the helpers (t2test_posix.c, t2test_win32.c). */
#ifndef T2TEST_PLAT_H
#define T2TEST_PLAT_H

#include <stddef.h>

/* The calls on files whose results a replay gets back (below). */
enum t2_file_call {
	T2_CALL_READ = 'F',	/* t2_read_file(): the text, or none */
	T2_CALL_WRITE = 'W',	/* t2_write_file(): its result */
	T2_CALL_LIST = 'L',	/* t2_listdir(): the names */
	T2_CALL_MKDIRS = 'M',	/* t2_mkdirs(): its result */
	T2_CALL_UNLINK = 'U',	/* unlink() */
	T2_CALL_MKDIR = 'K',	/* mkdir() */
	T2_CALL_STAT = 'S',	/* stat(): its result and the struct */
};

/*
 * On Windows a scenario runs in a new process that replays the test case
 * up to it (t2test_win32.c), with the files as the runner left them: the
 * replay neither changes nor reads them, it gets the runner's results
 * back.  t2_plat_replay(): 1 in such a replay, with the runner's result
 * of the call in *rc and *data (malloc'd, *len bytes; NULL: none); else
 * 0: the caller makes the call, then gives its result to
 * t2_plat_record(), which keeps it for the replays.  POSIX: 0, and
 * nothing kept (a forked child has the runner's state).
 */
int t2_plat_replay(enum t2_file_call call, int *rc, char **data, size_t *len);
void t2_plat_record(enum t2_file_call call, int rc, const char *data, size_t len);

/*
 * The Windows build's POSIX names (t2posix_win32.c) reach the harness
 * through these, which t2test_win32.c sets before main(): a program
 * without the harness (the fuzzers' replay) links the names alone, its
 * calls made plainly and exec() failing.
 */
struct t2_posix_harness {
	int (*replay)(enum t2_file_call call, int *rc, char **data, size_t *len);
	void (*record)(enum t2_file_call call, int rc, const char *data, size_t len);
	void (*exec)(const char *path, char *const argv[]);
};
extern struct t2_posix_harness t2_posix_harness;

#endif
