/* Process information: the names of the parent processes (tr2_plat_parent()). */
#include "tr2_procinfo.h"
#include "tr2_plat.h"

#include <unistd.h>

#define NAME_SIZE 64
#define ANCESTRY_MAX 64

void tr2_procinfo_ancestry(tr2_ancestry_fn *fn, void *ctx)
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
		fn(list, ctx);
}
