/*
 * What a POSIX system tells of the process: at start, the names of its
 * parents, walked with tr2_plat_parent() as Git does on Linux; nothing
 * at exit.
 */
#ifndef _WIN32
#include "tr2_plat.h"
#include "tr2_gitloc.h"

#include <unistd.h>

#define NAME_SIZE 64
#define ANCESTRY_MAX 64

static void report_ancestry(const struct tr2_plat_info_sink *sink)
{
	char names[ANCESTRY_MAX][NAME_SIZE];
	const char *list[ANCESTRY_MAX + 1];
	long pid = (long)getppid(), ppid;
	int n = 0;

	while (n < ANCESTRY_MAX && !tr2_plat_parent(pid, names[n], sizeof(names[n]), &ppid)) {
		list[n] = names[n];
		n++;
		if (!ppid)
			break;
		pid = ppid;
	}
	list[n] = NULL;
	if (n)
		sink->ancestry(TR2_GITLOC_ANCESTRY, list, sink->ctx);
}

void tr2_plat_process_info(int at_exit, const struct tr2_plat_info_sink *sink)
{
	if (!at_exit)
		report_ancestry(sink);
}
#endif
