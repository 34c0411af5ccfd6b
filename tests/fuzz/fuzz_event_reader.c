/*
 * Fuzzer: the trace2 command's event-log reader (tools/json.c,
 * tools/reader.c) and the perf and normal targets and the OTLP converter
 * (tools/otlp.c) fed with what it reads.
 *
 * 1. The input is a log: it is fed to the reader in pieces whose sizes
 *    come from its own first bytes, and every record goes through the
 *    perf and normal targets (writing to /dev/null) and the OTLP
 *    converter, as "trace2 convert" does.  Nothing may crash, leak or
 *    read out of bounds.
 * 2. Every line is also parsed by the tests' independent strict parser
 *    (tests/support/tjson.c): where tjson accepts an object, the reader
 *    must accept it with the same member names, types and decoded strings;
 *    where the reader accepts a line without bytes that are not UTF-8,
 *    lone surrogates or deep nesting, tjson must accept it too.
 * 3. The log is read once more into "trace2 summary" (tools/summary.c),
 *    whose text or JSON form (the first byte says which) goes to
 *    /dev/null.
 */
#include "fuzz.h"
#include "tjson.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "otlp.h"
#include "reader.h"
#include "summary.h"
#include "tr2_dst.h"
#include "tr2_event.h"
#include "tr2_sysenv.h"
#include "tr2_tgt.h"
#include "tr2_tgt_normal.h"
#include "tr2_tgt_perf.h"

static struct tr2_dst dst;
static struct tr2_tgt_state perf, normal, perf_brief;
static struct tr2_time_cache times;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct trace2_target_config config;
	int fd = open(FZ_NULL_DEVICE, O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	tr2_time_cache_init(&times);
	tr2_dst_init(&dst, TR2_SYSENV_PERF);
	tr2_dst_attach_fd(&dst, fd);
	config.output = tr2_output_of(&dst);
	config.created = 1;
	config.brief = 0;
	tr2_tgt_perf.open(&perf, &config);
	tr2_tgt_normal.open(&normal, &config);
	config.brief = 1;
	tr2_tgt_perf.open(&perf_brief, &config);
	devnull = fopen(FZ_NULL_DEVICE, "w");
	return 0;
}

static void on_record(void *ctx, struct t2_record *rec)
{
	/* the library's record around it, as the replay seam makes */
	struct tr2_ev ev = { .pub = rec->ev, .times = &times };

	if (!rec->known || !rec->proc || !rec->thread)
		return;
	otlp_record(ctx, rec);
	tr2_tgt_perf.event(&perf, &ev.pub);
	tr2_tgt_normal.event(&normal, &ev.pub);
	tr2_tgt_perf.event(&perf_brief, &ev.pub);
}

static void on_bad(void *ctx, const char *src, unsigned long lineno, const char *reason,
		   int ignored, int no_newline)
{
	(void)ctx;
	(void)src;
	(void)lineno;
	(void)ignored;
	(void)no_newline;
	FZ_CHECK(reason && *reason);
}

static int jtype_of(const struct tjson *t)
{
	switch (t->type) {
	case TJSON_NULL: return J_NULL;
	case TJSON_BOOL: return t->boolean ? J_TRUE : J_FALSE;
	case TJSON_NUMBER: return J_NUMBER;
	case TJSON_STRING: return J_STRING;
	case TJSON_ARRAY: return J_ARRAY;
	default: return J_OBJECT;
	}
}

static void differential(const char *line, size_t len)
{
	static struct jobj o;
	const char *err = NULL;
	struct tjson *t = tjson_parse(line, len, &err);
	char why[128];
	size_t at, i, depth = 0, maxdepth = 0;
	int mine = jobj_parse(&o, line, len, why, sizeof(why), &at);
	int odd = 0;

	for (i = 0; i < len; i++) {
		if (line[i] == '[' || line[i] == '{')
			maxdepth = ++depth > maxdepth ? depth : maxdepth;
		else if ((line[i] == ']' || line[i] == '}') && depth)
			depth--;
	}
	if (t && t->type == TJSON_OBJECT) {
		FZ_CHECK(mine == 0);
		if (!o.duplicate) {
			FZ_CHECK(o.n == t->n);
			for (i = 0; i < o.n; i++) {
				const struct jval *v = &o.m[i].v;

				FZ_CHECK(t->key_lens[i] == strlen(o.m[i].key));
				FZ_CHECK(!strcmp(t->keys[i], o.m[i].key));
				FZ_CHECK((int)v->type == jtype_of(t->items[i]));
				if (v->type == J_STRING) {
					FZ_CHECK(v->str_len == t->items[i]->len);
					FZ_CHECK(!memcmp(v->str, t->items[i]->text, v->str_len));
				}
				if (v->type == J_ARRAY)
					FZ_CHECK(v->count == t->items[i]->n);
			}
		}
	}
	if (!mine) {
		for (i = 0; i < o.n; i++) {
			const struct jval *v = &o.m[i].v;

			if (v->bad_utf8 || v->lone_surrogate || (v->type == J_ARRAY && !v->strs))
				odd = 1;
		}
		/* a key or a nested string may hold the odd bytes too: only
		 * plain ASCII lines are held to it */
		for (i = 0; i < len; i++)
			if ((unsigned char)line[i] >= 0x80 || (line[i] == '\\' && i + 1 < len &&
							       line[i + 1] == 'u'))
				odd = 1;
		if (!odd && maxdepth < 200)
			FZ_CHECK(t != NULL);
	}
	tjson_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct t2_reader r;
	struct t2_source src;
	const char *p = (const char *)data, *end = p + size, *nl;
	size_t off = 0;
	unsigned step = size ? data[0] % 61 + 1 : 1;
	struct otlp *o = otlp_new(devnull);

	FZ_CHECK(devnull != NULL);
	t2_reader_init(&r, on_record, on_bad, o);
	t2_source_init(&src, "fuzz");
	while (off < size) {
		size_t n = size - off < step ? size - off : step;

		t2_source_feed(&r, &src, p + off, n);
		off += n;
		step = data[off - 1] % 61 + 1;
	}
	t2_source_end(&r, &src);
	otlp_finish(o);
	t2_reader_free(&r);

	if (devnull) {
		struct t2_summary *s = t2_summary_new(&r, 1);

		t2_source_init(&src, "fuzz");
		t2_source_feed(&r, &src, p, size);
		t2_source_end(&r, &src);
		FZ_CHECK(!t2_summary_write(s, devnull, size && (data[0] & 0x40),
					   size > 1 ? (long)(data[1] % 4) - 1 : -1));
		t2_reader_free(&r);
	}

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		differential(p, (size_t)(nl - p));
	}
	return 0;
}
