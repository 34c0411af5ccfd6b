/*
 * Fuzzer: "trace2 convert --to otlp DIR" (tools/convert.c, tools/otlp.c),
 * run through cmd_convert() on the input as files (fz_cmd.h).  Nothing may
 * crash, leak or read out of bounds, the exit code is 0 or 1, and every
 * output line is a strict JSON object (OTLP/JSON, one export request a
 * line).
 */
#include "fuzz.h"
#include "fz_cmd.h"
#include "tjson.h"

#include "convert.h"

static void check_line(const char *line, size_t len, void *ctx)
{
	struct tjson *t = tjson_parse(line, len, NULL);

	(void)ctx;
	FZ_CHECK(t && t->type == TJSON_OBJECT);
	tjson_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const opts[] = { "--to", "otlp", NULL };
	struct fz_cmd_out out;
	int ret = fz_cmd_run(cmd_convert, opts, data, size, &out);

	FZ_CHECK(ret == 0 || ret == 1);
	FZ_CHECK(!out.len || out.p[out.len - 1] == '\n');
	fz_cmd_each_line(&out, check_line, NULL);
	return 0;
}
