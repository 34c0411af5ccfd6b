/*
 * trace2 convert --to perf|normal [--brief] FILE...: every record read
 * from the event-format files is handed to the library's own perf or
 * normal target, writing to standard output.  --to otlp: OpenTelemetry
 * traces (otlp.c).
 */
#include "convert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "reader.h"
#include "tr2_dst.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"
#include "tr2_tgt.h"
#include "tr2_tgt_normal.h"
#include "tr2_tgt_perf.h"
#include "usage.h"

/*
 * Standard output, buffered: the targets write one record at a time (a
 * write() each, and for a pipe or terminal signals held around it, as a
 * traced program must); the converter is one thread that owns its
 * output, so it collects records and writes them 64 KiB at a time.  The
 * destination is made a plain file's, whose writes go through tr2_sys.
 */
static char out_buf[65536];
static size_t out_len;
static ssize_t (*real_write)(int fd, const void *buf, size_t n);

static int out_write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = real_write(1, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int out_errno; /* the first failure */

static int out_flush(void)
{
	int r = out_write_all(out_buf, out_len);

	if (r && !out_errno)
		out_errno = errno;
	out_len = 0;
	return r;
}

static ssize_t out_write(int fd, const void *buf, size_t n)
{
	if (fd != 1)
		return real_write(fd, buf, n);
	if (out_len + n > sizeof(out_buf) && out_flush())
		return -1;
	if (n > sizeof(out_buf)) {
		if (!out_write_all(buf, n))
			return (ssize_t)n;
		if (!out_errno)
			out_errno = errno;
		return -1;
	}
	memcpy(out_buf + out_len, buf, n);
	out_len += n;
	return (ssize_t)n;
}

struct convert {
	const struct trace2_target *target;
	struct tr2_tgt_state st;
	struct t2_reader *reader;
	unsigned long skipped;
};

static void bad_line(void *ctx, const char *src, unsigned long lineno, const char *reason,
		     int ignored, int no_newline)
{
	struct convert *c = ctx;

	(void)ignored;
	c->skipped++;
	fprintf(stderr, "%s:%lu: %s%s; skipped\n", src, lineno, reason,
		no_newline ? " (last line, no newline)" : "");
}

static void record(void *ctx, struct t2_record *rec)
{
	struct convert *c = ctx;

	if (!rec->known)
		return; /* another version's event: nothing to write */
	if (!rec->proc || !rec->thread) {
		c->skipped++;
		fprintf(stderr, "%s:%lu: no %s string; skipped\n", rec->src, rec->lineno,
			rec->proc ? "\"thread\"" : "\"sid\"");
		return;
	}
	c->target->event(&c->st, &rec->ev.pub);
	if (!tr2_dst_is_on(c->st.dst))
		c->reader->stop = 1; /* standard output failed: nothing more to do */
}

int cmd_convert(int argc, char **argv)
{
	struct convert c;
	struct t2_reader r;
	struct tr2_dst dst;
	struct trace2_target_config config;
	const char *to = NULL;
	int brief = 0, i, nfiles = 0, ret = 0;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--to") && i + 1 < argc)
			to = argv[++i];
		else if (!strncmp(argv[i], "--to=", 5))
			to = argv[i] + 5;
		else if (!strcmp(argv[i], "--brief"))
			brief = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage_show("convert", 0);
		else if (!strcmp(argv[i], "--"))
			{ i++; break; }
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("convert", "unknown option '%s'", argv[i]);
		else
			break;
	}
	nfiles = argc - i;
	if (!to)
		return usage_error("convert", "--to perf|normal|otlp is required");
	if (!strcmp(to, "otlp")) {
		if (brief)
			return usage_error("convert", "--brief is for perf and normal");
		if (!nfiles)
			return usage_error("convert", "no input (give FILE, DIR or -)");
		return otlp_convert(argv + i, nfiles, stdout);
	}
	if (!strcmp(to, "perf"))
		c.target = &tr2_tgt_perf;
	else if (!strcmp(to, "normal"))
		c.target = &tr2_tgt_normal;
	else
		return usage_error("convert", "unknown format '%s' (perf, normal or otlp)", to);
	if (!nfiles)
		return usage_error("convert", "no input (give FILE, DIR or -)");

	tr2_dst_init(&dst, c.target == &tr2_tgt_perf ? TR2_SYSENV_PERF : TR2_SYSENV_NORMAL);
	tr2_dst_attach_fd(&dst, 1);
	dst.kind = TR2_DST_FILE; /* plain write()s, into out_buf */
	real_write = tr2_sys.write;
	tr2_sys.write = out_write;
	config.output = tr2_output_of(&dst);
	config.brief = brief;
	config.created = 1;
	if (c.target->open(&c.st, &config))
		return 2;
	t2_reader_init(&r, record, bad_line, &c);
	c.reader = &r;
	for (; i < argc && !r.stop; i++)
		if (t2_reader_read_path(&r, argv[i]))
			ret = 1;
	t2_reader_free(&r);
	if (tr2_dst_is_on(&dst))
		out_flush();
	tr2_sys.write = real_write;
	if (out_errno) {
		fprintf(stderr, "trace2: standard output: %s\n", strerror(out_errno));
		ret = 1;
	}
	if (!tr2_dst_is_on(&dst))
		ret = 1;
	return ret;
}
