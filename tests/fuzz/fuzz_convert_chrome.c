/*
 * Fuzzer: "trace2 convert --to chrome [--brief] DIR" (tools/convert.c,
 * tools/chrome_out.c and the chrome target), run through cmd_convert() on
 * the input as files (fz_cmd.h): event logs, or Chrome files (a file
 * whose first line starts with '[' or {"traceEvents":[).  Nothing may
 * crash, leak or read out of bounds, the exit code is 0 or 1, and the
 * output is strict JSON: an object whose "traceEvents" is an array of
 * objects, each with no key twice, a one-letter "ph" that is not B or
 * E, an integer "pid"; metadata (M) first, then in "ts" order.
 */
#include <string.h>

#include "fuzz.h"
#include "fz_cmd.h"
#include "tjson.h"

#include "convert.h"

/* One event of the output; *meta_done: a non-metadata event was seen,
 * *last: its ts. */
static void check_event(const struct tjson *e, int *meta_done, double *last)
{
	const char *ph = tjson_get_str(e, "ph");
	const struct tjson *pid = tjson_get(e, "pid"), *ts = tjson_get(e, "ts");
	size_t i, j;

	FZ_CHECK(e->type == TJSON_OBJECT);
	for (i = 0; i < e->n; i++)
		for (j = 0; j < i; j++)
			FZ_CHECK(e->key_lens[i] != e->key_lens[j] ||
				 memcmp(e->keys[i], e->keys[j], e->key_lens[i]));
	FZ_CHECK(ph && ph[0] && !ph[1] && ph[0] != 'B' && ph[0] != 'E');
	FZ_CHECK(pid && pid->type == TJSON_NUMBER && !strpbrk(pid->text, ".eE-"));
	if (ph[0] == 'M') {
		FZ_CHECK(!*meta_done);
		return;
	}
	FZ_CHECK(ts && ts->type == TJSON_NUMBER && ts->number >= *last);
	*meta_done = 1;
	*last = ts->number;
}

static void convert(const char *const *opts, const uint8_t *data, size_t size)
{
	int meta_done = 0;
	double last = 0;
	struct fz_cmd_out out;
	int ret = fz_cmd_run(cmd_convert, opts, data, size, &out);
	struct tjson *t = tjson_parse(out.p, out.len, NULL);
	const struct tjson *events = tjson_get(t, "traceEvents");
	size_t i;

	FZ_CHECK(ret == 0 || ret == 1);
	FZ_CHECK(events && events->type == TJSON_ARRAY);
	for (i = 0; i < events->n; i++)
		check_event(events->items[i], &meta_done, &last);
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
