/* Process information: the names of the parent processes (Linux /proc). */
#include "tr2_procinfo.h"
#include "tr2_sys.h"
#include "tr2_buf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAT_READ_MAX 64
#define ANCESTRY_MAX 64

/* Read the name and parent pid from /proc/<pid>/stat; 0 on success. */
static int read_stat(long pid, char name[STAT_READ_MAX], long *ppid)
{
	char path[64], buf[STAT_READ_MAX + 1], *p, *open_paren, *close_paren, *end;
	ssize_t n;
	int fd;

	p = tr2_put_lit(path, "/proc/");
	p = tr2_put_i64(p, pid);
	p = tr2_put_lit(p, "/stat");
	*p = '\0';
	fd = tr2_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = tr2_read(fd, buf, STAT_READ_MAX);
	tr2_sys.close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	open_paren = memchr(buf, '(', (size_t)n);
	close_paren = memrchr(buf, ')', (size_t)n);
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    close_paren + 4 > buf + n)
		return -1;
	*ppid = strtol(close_paren + 4, &end, 10);
	if (end == close_paren + 4 || *end != ' ')
		return -1;
	memcpy(name, open_paren + 1, (size_t)(close_paren - open_paren - 1));
	name[close_paren - open_paren - 1] = '\0';
	return 0;
}

void tr2_procinfo_ancestry(tr2_ancestry_fn *fn, void *ctx)
{
	char names[ANCESTRY_MAX][STAT_READ_MAX];
	const char *list[ANCESTRY_MAX + 1];
	long pid = (long)getppid(), ppid;
	int n = 0;

	while (n < ANCESTRY_MAX && !read_stat(pid, names[n], &ppid)) {
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
