/*
 * Test host of the trace2 command's named-pipe listener
 * (tools/listen_win32.c), for tests/tools/test_tool_windows.sh: built
 * with mingw-w64 from that file, tools/alloc.c, tools/sys_win32.c and
 * this one, which stands in for the reader, and run under Wine.  Until the library
 * builds for Windows, this is how the listener runs there.
 *
 *   listen_host --check ADDRESS...
 *       per ADDRESS, "1 ADDRESS" or "0 ADDRESS": whether --listen takes it
 *   listen_host ADDRESS COUNT MAX_LINE
 *       t2_listen_run() at ADDRESS until COUNT clients have closed; each
 *       whole line of a client is printed as "NAME<TAB>LINE", a client's
 *       end as "end NAME LINES" (after "cut NAME BYTES" for a last line
 *       without newline); a line over MAX_LINE bytes drops its client
 *       (the reader's limit)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "listen.h"
#include "sys.h"

/* Each source's line so far (the stub's reader keeps it beside the
 * source, by its address). */
#define SOURCES 128
static struct partial {
	const struct t2_source *s;
	char *line;
	size_t len;
	unsigned long lines;
} parts[SOURCES];

static struct partial *part_of(const struct t2_source *s)
{
	size_t i;

	for (i = 0; i < SOURCES; i++)
		if (parts[i].s == s)
			return &parts[i];
	fprintf(stderr, "listen_host: an unknown source\n");
	exit(3);
}

void t2_source_init(struct t2_source *s, const char *name)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->name = name;
	for (i = 0; i < SOURCES && parts[i].s; i++)
		;
	if (i == SOURCES) {
		fprintf(stderr, "listen_host: too many sources at once\n");
		exit(3);
	}
	parts[i].s = s;
	parts[i].line = t2_realloc(NULL, 1);
	parts[i].len = 0;
	parts[i].lines = 0;
}

int t2_source_feed(struct t2_reader *r, struct t2_source *s, const char *data, size_t n)
{
	struct partial *p = part_of(s);
	const char *nl;
	size_t k;

	while (n) {
		nl = memchr(data, '\n', n);
		k = nl ? (size_t)(nl - data) : n;

		if (p->len + k > r->max_line)
			return -1;
		p->line = t2_realloc(p->line, p->len + k + 1);
		memcpy(p->line + p->len, data, k);
		p->len += k;
		if (!nl)
			break;
		printf("%s\t%.*s\n", s->name, (int)p->len, p->line);
		p->lines++;
		p->len = 0;
		data += k + 1;
		n -= k + 1;
	}
	return 0;
}

void t2_source_end(struct t2_reader *r, struct t2_source *s)
{
	struct partial *p = part_of(s);

	(void)r;
	if (p->len)
		printf("cut %s %zu\n", s->name, p->len);
	printf("end %s %lu\n", s->name, p->lines);
	free(p->line);
	memset(p, 0, sizeof(*p));
}

int main(int argc, char **argv)
{
	struct t2_reader r;
	struct t2_listen l;
	int i;

	t2_sys_binary_stdio(); /* the test reads LF, not CRLF */
	if (t2_sys_utf8_args(&argc, &argv)) /* as the command takes them */
		return 2;
	if (argc > 1 && !strcmp(argv[1], "--check")) {
		for (i = 2; i < argc; i++)
			printf("%d %s\n", t2_listen_address(argv[i]), argv[i]);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: listen_host --check ADDRESS... | ADDRESS COUNT MAX_LINE\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	r.max_line = strtoul(argv[3], NULL, 10);
	memset(&l, 0, sizeof(l));
	l.r = &r;
	l.count = strtol(argv[2], NULL, 10);
	if (!t2_listen_address(argv[1])) {
		fprintf(stderr, "listen_host: --listen takes %s\n", t2_listen_form);
		return 2;
	}
	i = t2_listen_run(&l, argv[1]);
	fflush(stdout);
	return i;
}
