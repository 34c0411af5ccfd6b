/*
 * Fuzzer: the trace2 command's recording reader (tools/record.c).  The
 * input is a recording without its 16-byte magic, which is put before it.
 *
 * 1. It is fed to the reader in pieces whose sizes come from its own
 *    bytes, and every record goes to the perf and normal targets (writing
 *    to /dev/null) with its UTC offset, as "trace2 convert" does.  Every
 *    bad block is reported with its place ("offset N: ...").  Nothing may
 *    crash, leak or read out of bounds.
 * 2. "trace2 validate --strict" and "trace2 convert --to chrome" read it
 *    as a file (fz_cmd.h; a line holding only a form feed starts another
 *    file, without the magic): exit code 0 or 1.
 */
#include "fuzz.h"
#include "fz_cmd.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "reader.h"
#include "tr2_dst.h"
#include "tr2_replay.h"
#include "tr2_sysenv.h"
#include "validate.h"

static const uint8_t magic[16] = { 0x89, 'T', '2', 'R', 0x0d, 0x0a, 0x1a, 0x0a, 2 };

static struct tr2_dst dst;
static struct tr2_replay *perf, *normal;

static void open_targets(void)
{
	struct tr2_replay_options opt;

	if (perf)
		return;
	memset(&opt, 0, sizeof(opt));
	opt.created = 1;
	tr2_dst_init(&dst, TR2_SYSENV_PERF);
	tr2_dst_attach_fd(&dst, open(FZ_NULL_DEVICE, O_WRONLY | O_CLOEXEC));
	perf = tr2_replay_open_builtin("perf", &dst, &opt);
	normal = tr2_replay_open_builtin("normal", &dst, &opt);
	FZ_CHECK(perf && normal);
}

static void on_record(void *ctx, struct t2_record *rec)
{
	(void)ctx;
	FZ_CHECK(rec->binary && rec->known);
	if (!t2_record_usable(rec, 1))
		return;
	tr2_replay_utc_offset(perf, rec->has_utc_offset, rec->utc_offset);
	tr2_replay_event(perf, &rec->ev);
	tr2_replay_utc_offset(normal, rec->has_utc_offset, rec->utc_offset);
	tr2_replay_event(normal, &rec->ev);
}

static void on_bad(void *ctx, const char *src, unsigned long lineno, const char *reason,
		   int ignored, int no_newline)
{
	(void)ctx;
	(void)src;
	(void)ignored;
	(void)no_newline;
	FZ_CHECK(!lineno && !strncmp(reason, "offset ", 7));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const strict[] = { "--strict", NULL };
	static const char *const chrome[] = { "--to", "chrome", NULL };
	uint8_t *all = malloc(sizeof(magic) + size);
	struct fz_cmd_out out;
	struct t2_reader r;
	struct t2_source src;
	size_t off = 0, n, step = size ? data[0] % 97 + 1 : 1;
	int ret;

	FZ_CHECK(all != NULL);
	memcpy(all, magic, sizeof(magic));
	if (size)
		memcpy(all + sizeof(magic), data, size);
	size += sizeof(magic);
	open_targets();
	t2_reader_init(&r, on_record, on_bad, NULL);
	t2_source_init(&src, "fuzz");
	while (off < size) {
		n = size - off < step ? size - off : step;
		t2_source_feed(&r, &src, (const char *)all + off, n);
		off += n;
		step = all[off - 1] % 97 + 1;
	}
	t2_source_end(&r, &src);
	t2_reader_free(&r);

	ret = fz_cmd_run(cmd_validate, strict, all, size, &out);
	FZ_CHECK(ret == 0 || ret == 1);
	ret = fz_cmd_run(cmd_convert, chrome, all, size, &out);
	FZ_CHECK(ret == 0 || ret == 1);
	free(all);
	return 0;
}
