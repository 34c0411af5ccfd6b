/*
 * Fuzzer: "trace2 summary DIR", "trace2 summary --json --top 2 DIR" and
 * the same filtered by SID, command, category and time (tools/summary.c), run through cmd_summary() on the input as files
 * (fz_cmd.h).  Nothing may crash, leak or read out of bounds, the exit
 * code is 0 or 1, the text starts with its "processes:" line and has no
 * control characters or bytes that are not UTF-8 (whatever the log's
 * strings hold), and the JSON form is one strict JSON object.
 */
#include "fuzz.h"
#include "fz_cmd.h"
#include "tjson.h"

#include <string.h>

#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const text[] = { NULL };
	static const char *const json[] = { "--json", "--top", "2", NULL };
	static const char *const filtered[] = { "--tree", "--sid", "A", "--command=git",
		"--category", "c", "--since", "2000-01-01T00:00:00Z", "--until",
		"2100-01-01T00:00:00.5", NULL };
	struct fz_cmd_out out;
	struct tjson *t;
	int ret = fz_cmd_run(cmd_summary, text, data, size, &out);

	FZ_CHECK(ret == 0 || ret == 1);
	FZ_CHECK(!strncmp(out.p, "processes: ", 11));
	FZ_CHECK(fz_cmd_plain_text(&out));
	ret = fz_cmd_run(cmd_summary, filtered, data, size, &out);
	FZ_CHECK(ret == 0 || ret == 1);
	FZ_CHECK(!strncmp(out.p, "processes: ", 11));
	FZ_CHECK(fz_cmd_plain_text(&out));
	ret = fz_cmd_run(cmd_summary, json, data, size, &out);
	FZ_CHECK(ret == 0 || ret == 1);
	t = tjson_parse(out.p, out.len, NULL);
	FZ_CHECK(t && t->type == TJSON_OBJECT && tjson_get(t, "processes"));
	tjson_free(t);
	return 0;
}
