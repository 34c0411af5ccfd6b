/*
 * Fuzzer: "trace2 validate --strict DIR" (tools/validate.c) on files, run
 * through cmd_validate() on the input as files (fz_cmd.h).  Nothing may
 * crash, leak or read out of bounds; every output line is a finding
 * "DIR/FILE:LINE: error: ...", "...: warning: ..." or "...: note: ..." (one
 * line each, what the input holds cannot break it nor write control
 * characters or bytes that are not UTF-8), and the exit code is 1 exactly
 * when there is an error or a warning (--strict counts warnings too) but
 * the warnings of cut last lines.
 */
#include "fuzz.h"
#include "fz_cmd.h"

#include <string.h>

#include "validate.h"

struct findings {
	const char *dir;
	unsigned long n;    /* but those of cut last lines */
};

/* The end of the warning of a last line without newline, which leaves
 * the exit code alone. */
static const char cut[] = "last line without newline (cut off?); collectors discard it";
/* and of a recording cut in a block */
static const char cut_rec[] = "while it was written); its whole records read";

static int ends_with(const char *s, size_t len, const char *end)
{
	size_t n = strlen(end);

	return len > n && !memcmp(s + len - n, end, n);
}

static void check_finding(const char *line, size_t len, void *ctx)
{
	struct findings *f = ctx;
	size_t dlen = strlen(f->dir), i = dlen + 1;

	FZ_CHECK(len > dlen + 2 && !memcmp(line, f->dir, dlen) && line[dlen] == '/');
	while (i < len && line[i] >= '0' && line[i] <= '9') /* the file */
		i++;
	FZ_CHECK(i < len && line[i] == ':');
	if (i + 1 < len && line[i + 1] != ' ') /* a recording's has no line */
		i++;
	while (i < len && line[i] >= '0' && line[i] <= '9') /* the line */
		i++;
	FZ_CHECK(len - i > 10 && (!memcmp(line + i, ": error: ", 9) ||
				  !memcmp(line + i, ": warning: ", 11) ||
				  !memcmp(line + i, ": note: ", 8)));
	if (line[i + 2] == 'n')
		return; /* what the log is, no problem */
	if (line[i + 2] == 'w' && (ends_with(line + i, len - i, cut) ||
				   ends_with(line + i, len - i, cut_rec)))
		return;
	f->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const opts[] = { "--strict", NULL };
	struct fz_cmd_out out;
	struct findings f = { fz_cmd_dir(), 0 };
	int ret = fz_cmd_run(cmd_validate, opts, data, size, &out);

	FZ_CHECK(!out.len || out.p[out.len - 1] == '\n');
	FZ_CHECK(fz_cmd_plain_text(&out));
	fz_cmd_each_line(&out, check_finding, &f);
	FZ_CHECK(ret == (f.n ? 1 : 0));
	return 0;
}
