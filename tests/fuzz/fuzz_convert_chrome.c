/*
 * Fuzzer: "trace2 convert --to chrome [--brief] DIR" (tools/convert.c and
 * the chrome target), run through cmd_convert() on the input as files
 * (fz_cmd.h).  Nothing may crash, leak or read out of bounds, the exit
 * code is 0 or 1, and the output is strict JSON: an object whose
 * "traceEvents" is an array of objects.
 */
#include "fuzz.h"
#include "fz_cmd.h"
#include "tjson.h"

#include "convert.h"

static void convert(const char *const *opts, const uint8_t *data, size_t size)
{
	struct fz_cmd_out out;
	int ret = fz_cmd_run(cmd_convert, opts, data, size, &out);
	struct tjson *t = tjson_parse(out.p, out.len, NULL);
	const struct tjson *events = tjson_get(t, "traceEvents");
	size_t i;

	FZ_CHECK(ret == 0 || ret == 1);
	FZ_CHECK(events && events->type == TJSON_ARRAY);
	for (i = 0; i < events->n; i++)
		FZ_CHECK(events->items[i]->type == TJSON_OBJECT);
	tjson_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const full[] = { "--to", "chrome", NULL };
	static const char *const brief[] = { "--to", "chrome", "--brief", NULL };

	convert(full, data, size);
	convert(brief, data, size);
	return 0;
}
