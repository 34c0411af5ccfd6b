/*
 * Category filters (GIT_TRACE2_CATEGORIES, trace2.categories) and regions
 * paired by hand, on every target: normal, perf, event, chrome and a
 * registered target ("rec", which writes one line per record with its
 * nesting, t_abs and t_rel in microseconds).
 *
 * The scenarios run in forked children on a fake monotonic clock (the
 * library's clock_gettime() is wrapped, see the Makefile): the scenario
 * sets the time before each call, so t_abs and t_rel are exact and the
 * expected files are written out whole, byte for byte; only session ids,
 * wall-clock times and chrome's ts/pid are scrubbed.
 *
 * golden_*: one scenario without filters, with exclusions only ("-noise")
 * and with one inclusion ("app"): what remains is written as if the
 * filtered regions had never been entered (nesting, perf dots, the event
 * target's nesting limit, t_rel), process-level records always pass,
 * timers and counters follow their category.  Every event output also
 * passes trace2receiver's nesting rule (docs/event-schema.md, "Across
 * records").
 * paired_*: a leave with the wrong label, a thread ending with regions
 * open (with and without trace2_thread_exit()), a leave on an empty
 * stack (the first written at nesting 0, the second Git's BUG), a region
 * open at exit: Git's output (docs/api.md, "Regions") on every target, with
 * and without a filter.
 * patterns_*: the pattern language through trace2_category_enabled():
 * globs, exclusions, last match wins, only-exclusions, NULL, the config
 * key and its precedence, tracing off, a buffer whose text changes.
 * model_*: random region trees under random filters, checked against a
 * model of "as if never entered"; threads_*: verdicts from 4 threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "trace2/target.h"

/* ------------------------------------------------------------------ */
/* The fake clock.                                                      */
/* ------------------------------------------------------------------ */

#include "t2fakeclock.h"

/* The clock reads `s` seconds after the process start. */
static void at(int s)
{
	__atomic_store_n(&t2_fake_us, (uint64_t)(1000 + s) * 1000000u, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* The registered target.                                               */
/* ------------------------------------------------------------------ */

static int rec_fd = -1;

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* A region or data record: nesting, category/name, t_abs, t_rel. */
static int rec_placed(char *line, size_t size, const struct trace2_event *ev,
		      const char *category, const char *name)
{
	return snprintf(line, size, "%s %s n=%zu %s/%s abs=%llu rel=%llu\n",
			trace2_event_name(ev->kind), ev->thread->name, ev->nesting,
			str(category), str(name), (unsigned long long)ev->t_abs_us,
			(unsigned long long)ev->t_rel_us);
}

static int rec_metric(char *line, size_t size, const struct trace2_event *ev,
		      const char *category, const char *name)
{
	return snprintf(line, size, "%s %s %s/%s\n", trace2_event_name(ev->kind),
			ev->thread->name, str(category), str(name));
}

static void rec_event(void *ctx, const struct trace2_event *ev)
{
	char line[512];
	int n;

	(void)ctx;
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
	case TRACE2_EVENT_REGION_LEAVE:
		n = rec_placed(line, sizeof(line), ev, ev->region.category, ev->region.label);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		n = rec_placed(line, sizeof(line), ev, ev->data.category, ev->data.key);
		break;
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_TH_TIMER:
		n = rec_metric(line, sizeof(line), ev, ev->timer.category, ev->timer.name);
		break;
	case TRACE2_EVENT_COUNTER:
	case TRACE2_EVENT_TH_COUNTER:
		n = rec_metric(line, sizeof(line), ev, ev->counter.category, ev->counter.name);
		break;
	default:
		n = snprintf(line, sizeof(line), "%s %s\n", trace2_event_name(ev->kind),
			     ev->thread->name);
		break;
	}
	if (write(rec_fd, line, (size_t)n) != n)
		_exit(71);
}

static const struct trace2_target rec_target = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "rec",
	.event = rec_event,
};

/* ------------------------------------------------------------------ */
/* Running a scenario on every target.                                  */
/* ------------------------------------------------------------------ */

typedef void scenario_fn(void);

struct outs {
	char *normal, *perf, *event, *chrome, *rec, *err;
};

/* In the child: the fake clock from time 0, the registered target, then
 * the usual start. */
static void child_main(void *arg)
{
	scenario_fn *fn = *(scenario_fn **)arg;

	rec_fd = open(getenv("T2CAT_REC"), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	CHECK(rec_fd >= 0);
	t2_faking = 1;
	at(0);
	trace2_initialize_clock();
	CHECK(trace2_register_target(&rec_target, NULL) == 0);
	trace2_initialize();
	fn();
}

static char *read_scrubbed(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *raw = t2_read_file(path, NULL), *a, *b;

	if (!raw)
		raw = strdup("");
	a = t2_regsub(raw, "[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-H[0-9a-f]{8}-P[0-9a-f]{8}", "SID");
	b = t2_regsub(a, "\"time\":\"[^\"]*\"", "\"time\":\"T\"");
	free(a);
	a = t2_regsub(b, "\"ts\":[0-9]+,\"pid\":[0-9]+", "\"ts\":0,\"pid\":0");
	free(b);
	b = a;
	a = t2_regsub(b, "\"dur\":[0-9.]+", "\"dur\":0");
	free(b);
	free(raw);
	free(path);
	return a;
}

/* Run fn with every target on (brief) and categories (NULL: unset). */
static void run(scenario_fn *fn, const char *categories, const char *extra, struct outs *o)
{
	char *dir = t2_tmpdir();
	struct t2_env env = { 0 };
	struct t2_proc p;

	t2_env_add(&env, "GIT_TRACE2=%s/normal", dir);
	t2_env_add(&env, "GIT_TRACE2_PERF=%s/perf", dir);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s/event", dir);
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s/chrome", dir);
	t2_env_add(&env, "T2CAT_REC=%s/rec", dir);
	/* the fake clock is clock_gettime()'s: no TSC */
	t2_env_add(&env, "GIT_TRACE2_CLOCK=monotonic");
	t2_env_add(&env, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_PERF_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_EVENT_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_CHROME_BRIEF=1");
	if (categories)
		t2_env_add(&env, "GIT_TRACE2_CATEGORIES=%s", categories);
	if (extra)
		t2_env_add(&env, "%s", extra);
	t2_capture(child_main, &fn, t2_env_list(&env), 30, &p);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("scenario failed (status 0x%x): %s", p.status, p.err);
	o->normal = read_scrubbed(dir, "normal");
	o->perf = read_scrubbed(dir, "perf");
	o->event = read_scrubbed(dir, "event");
	o->chrome = read_scrubbed(dir, "chrome");
	o->rec = read_scrubbed(dir, "rec");
	o->err = p.err;
	p.err = NULL;
	t2_proc_free(&p);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(dir);
}

static void outs_free(struct outs *o)
{
	free(o->normal);
	free(o->perf);
	free(o->event);
	free(o->chrome);
	free(o->rec);
	free(o->err);
}

static void expect_text(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("%s:\n--- got:\n%s--- want:\n%s", what, got, want);
}

/* ------------------------------------------------------------------ */
/* Expected lines, from the formats of targets.md (brief).              */
/* ------------------------------------------------------------------ */

/* One brief perf line: event, t_abs, t_rel ("" blank), category,
 * nesting (dots: 2 * (nesting - 1)), payload. */
static void perf(char **b, const char *thread, const char *ev, const char *abs,
		 const char *rel, const char *cat, int nesting, const char *payload)
{
	char dots[64] = "";
	int i;

	for (i = 0; i < 2 * (nesting - 1) && i < 62; i++)
		dots[i] = '.';
	dots[i > 0 ? i : 0] = '\0';
	t2_append(b, "d0 | %-24s | %-12s |     | %9s | %9s | %-12.12s | %s%s\n", thread, ev,
		  abs, rel, cat, dots, payload);
}

#define EV "{\"event\":\"%s\",\"sid\":\"SID\",\"thread\":\"%s\""

/* The rest of a region line: its category, label and message. */
static void ev_region_end(char **b, const char *cat, const char *label, const char *msg)
{
	if (cat)
		t2_append(b, ",\"category\":\"%s\"", cat);
	t2_append(b, ",\"label\":\"%s\"", label);
	if (msg)
		t2_append(b, ",\"msg\":\"%s\"", msg);
	t2_append(b, "}\n");
}

static void ev_enter(char **b, const char *thread, int nesting, const char *cat,
		     const char *label, const char *msg)
{
	t2_append(b, EV ",\"nesting\":%d", "region_enter", thread, nesting);
	ev_region_end(b, cat, label, msg);
}

static void ev_leave(char **b, const char *thread, const char *rel, int nesting,
		     const char *cat, const char *label, const char *msg)
{
	t2_append(b, EV ",\"t_rel\":%s,\"nesting\":%d", "region_leave", thread, rel, nesting);
	ev_region_end(b, cat, label, msg);
}

static void ev_data(char **b, const char *abs, const char *rel, int nesting,
		    const char *cat, const char *key, const char *value)
{
	t2_append(b, EV ",\"t_abs\":%s,\"t_rel\":%s,\"nesting\":%d,\"category\":\"%s\","
		  "\"key\":\"%s\",\"value\":\"%s\"}\n",
		  "data", "main", abs, rel, nesting, cat, key, value);
}

#define EV_VERSION "{\"event\":\"version\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"T\",\"evt\":\"4\",\"exe\":\"" TRACE2_VERSION_STRING "\"}\n"
#define EV_EXIT(abs) "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":" abs ",\"code\":0}\n"
#define EV_ATEXIT(abs) "{\"event\":\"atexit\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"T\",\"t_abs\":" abs ",\"code\":0}\n"
#define EV_TIMER "{\"event\":\"timer\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test1\",\"intervals\":1,\"t_total\":1.000000,\"t_min\":1.000000,\"t_max\":1.000000}\n"
#define EV_COUNTER "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test1\",\"count\":3}\n"

#define CH(name, cat, ph, tid) "{\"name\":\"" name "\"," cat "\"ph\":\"" ph "\",\"ts\":0,\"pid\":0,\"tid\":" #tid
#define CAT(c) "\"cat\":\"" c "\","
#define CH_START "[\n" CH("thread_name", "", "M", 1) ",\"args\":{\"name\":\"main\"}},\n"
#define CH_X(name, cat, tid) CH(name, cat, "X", tid) ",\"dur\":0},\n"
#define CH_END CH_X("process", CAT("process"), 1)
#define CH_I(name, cat, tid) CH(name, cat, "i", tid) ",\"s\":\"t\"},\n"

/* An integer member, or -1 if absent or no number. */
static int json_int(const struct tjson *v, const char *key)
{
	const struct tjson *m = tjson_get(v, key);

	return m && m->type == TJSON_NUMBER ? (int)m->number : -1;
}

/*
 * trace2receiver's rule (docs/event-schema.md): per thread, a region_enter's
 * nesting is the number of regions open + 1, a region_leave's that of
 * the region it closes.  Returns the number of regions checked.
 */
static int check_receiver_rule(const char *event_text)
{
	char **lines = t2_lines(event_text, NULL), threads[8][32];
	int depth[8] = { 0 }, nthreads = 0, checked = 0, i, t;

	for (i = 0; lines[i]; i++) {
		const char *err, *name, *thread;
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), &err);

		if (!v)
			fail_msg("not JSON (%s): %s", err, lines[i]);
		name = tjson_get_str(v, "event");
		thread = tjson_get_str(v, "thread");
		assert_non_null(name);
		assert_non_null(thread);
		for (t = 0; t < nthreads && strcmp(threads[t], thread); t++)
			;
		if (t == nthreads) {
			assert_true(nthreads < 8);
			snprintf(threads[nthreads++], sizeof(threads[0]), "%s", thread);
		}
		if (!strcmp(name, "region_enter")) {
			if (json_int(v, "nesting") != depth[t] + 1)
				fail_msg("enter at nesting %d with %d open: %s",
					 json_int(v, "nesting"), depth[t], lines[i]);
			depth[t]++;
			checked++;
		} else if (!strcmp(name, "region_leave")) {
			if (json_int(v, "nesting") != depth[t])
				fail_msg("leave at nesting %d with %d open: %s",
					 json_int(v, "nesting"), depth[t], lines[i]);
			depth[t]--;
		}
		tjson_free(v);
	}
	t2_strv_free(lines);
	return checked;
}

/* ------------------------------------------------------------------ */
/* golden_*: one scenario, three filters.                               */
/* ------------------------------------------------------------------ */

static void sc_main(void)
{
	struct json_writer jw = JSON_WRITER_INIT;

	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "n", 1);
	jw_end(&jw);
	at(1); trace2_region_enter("app", "outer", NULL);
	at(2); trace2_data_string("app", NULL, "k", "v");
	at(3); trace2_region_enter("noise", "hidden", NULL);
	at(4); trace2_data_string("noise", NULL, "nk", "nv");
	at(5); trace2_data_intmax("app", NULL, "in_hidden", 5);
	at(6); trace2_region_enter_printf("app", "inner", NULL, "n=%d", 7);
	at(7); trace2_printf("hello");
	at(8); trace2_data_json("noise", NULL, "j", &jw);
	at(9); trace2_region_leave_printf("app", "inner", NULL, "n=%d", 7);
	at(10); trace2_region_leave("noise", "hidden", NULL);
	at(11); trace2_region_enter_printf("noise", "hidden2", NULL, "x");
	at(12); trace2_region_leave_printf("noise", "hidden2", NULL, "x");
	at(13); trace2_region_leave("app", "outer", NULL);
	at(14); trace2_region_enter(NULL, "nocat", NULL);
	at(15); trace2_region_leave(NULL, "nocat", NULL);
	at(16); trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	at(17); trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 3);
	at(18); trace2_cmd_exit(0);
	jw_release(&jw);
}

enum filter { NONE, NO_NOISE, ONLY_APP };

static const char *const filter_text[] = { NULL, "-noise", "app" };

static char *want_normal(enum filter f)
{
	char *b = NULL;

	t2_append(&b, "version %s\nhello\nexit elapsed:18.000000 code:0\n", TRACE2_VERSION_STRING);
	if (f != ONLY_APP)
		t2_append(&b, "timer test/test1 intervals:1 total:1.000000 min:1.000000 max:1.000000\n"
			  "counter test/test1 value:3\n");
	t2_append(&b, "atexit elapsed:18.000000 code:0\n");
	return b;
}

static char *want_perf(enum filter f)
{
	char *b = NULL;
	int all = f == NONE, d = all ? 1 : 0; /* "hidden" adds a level */

	perf(&b, "main", "version", "", "", "", 1, TRACE2_VERSION_STRING);
	perf(&b, "main", "region_enter", "1.000000", "", "app", 1, "label:outer");
	perf(&b, "main", "data", "2.000000", "1.000000", "app", 2, "k:v");
	if (all) {
		perf(&b, "main", "region_enter", "3.000000", "", "noise", 2, "label:hidden");
		perf(&b, "main", "data", "4.000000", "1.000000", "noise", 3, "nk:nv");
	}
	/* measured from "hidden" when it is written, else from "outer" */
	perf(&b, "main", "data", "5.000000", all ? "2.000000" : "4.000000", "app", 2 + d,
	     "in_hidden:5");
	perf(&b, "main", "region_enter", "6.000000", "", "app", 2 + d, "label:inner n=7");
	perf(&b, "main", "printf", "7.000000", "", "", 3 + d, "hello");
	if (all)
		perf(&b, "main", "data_json", "8.000000", "2.000000", "noise", 4, "j:{\"n\":1}");
	perf(&b, "main", "region_leave", "9.000000", "3.000000", "app", 2 + d, "label:inner n=7");
	if (all) {
		perf(&b, "main", "region_leave", "10.000000", "7.000000", "noise", 2, "label:hidden");
		perf(&b, "main", "region_enter", "11.000000", "", "noise", 2, "label:hidden2 x");
		perf(&b, "main", "region_leave", "12.000000", "1.000000", "noise", 2, "label:hidden2 x");
	}
	perf(&b, "main", "region_leave", "13.000000", "12.000000", "app", 1, "label:outer");
	if (f != ONLY_APP) {
		perf(&b, "main", "region_enter", "14.000000", "", "", 1, "label:nocat");
		perf(&b, "main", "region_leave", "15.000000", "1.000000", "", 1, "label:nocat");
	}
	perf(&b, "main", "exit", "18.000000", "", "", 1, "code:0");
	if (f != ONLY_APP) {
		perf(&b, "main", "timer", "", "", "test", 1,
		     "name:test1 intervals:1 total:1.000000 min:1.000000 max:1.000000");
		perf(&b, "main", "counter", "", "", "test", 1, "name:test1 value:3");
	}
	perf(&b, "main", "atexit", "18.000000", "", "", 1, "code:0");
	return b;
}

/* The event target writes regions and data up to nesting 2 (its
 * default): without filters "inner" and what is in it are too deep. */
static char *want_event(enum filter f)
{
	char *b = NULL;
	int all = f == NONE;

	t2_append(&b, EV_VERSION);
	ev_enter(&b, "main", 1, "app", "outer", NULL);
	ev_data(&b, "2.000000", "1.000000", 2, "app", "k", "v");
	if (all)
		ev_enter(&b, "main", 2, "noise", "hidden", NULL);
	else {
		ev_data(&b, "5.000000", "4.000000", 2, "app", "in_hidden", "5");
		ev_enter(&b, "main", 2, "app", "inner", "n=7");
	}
	t2_append(&b, EV ",\"t_abs\":7.000000,\"msg\":\"hello\"}\n", "printf", "main");
	if (all) {
		ev_leave(&b, "main", "7.000000", 2, "noise", "hidden", NULL);
		ev_enter(&b, "main", 2, "noise", "hidden2", "x");
		ev_leave(&b, "main", "1.000000", 2, "noise", "hidden2", "x");
	} else {
		ev_leave(&b, "main", "3.000000", 2, "app", "inner", "n=7");
	}
	ev_leave(&b, "main", "12.000000", 1, "app", "outer", NULL);
	if (f != ONLY_APP) {
		ev_enter(&b, "main", 1, NULL, "nocat", NULL);
		ev_leave(&b, "main", "1.000000", 1, NULL, "nocat", NULL);
	}
	t2_append(&b, EV_EXIT("18.000000"));
	if (f != ONLY_APP)
		t2_append(&b, EV_TIMER EV_COUNTER);
	t2_append(&b, EV_ATEXIT("18.000000"));
	return b;
}

static char *want_chrome(enum filter f)
{
	char *b = NULL;
	int all = f == NONE;

	t2_append(&b, CH_START CH_I("k", CAT("app"), 1));
	if (all)
		t2_append(&b, CH_I("nk", CAT("noise"), 1));
	t2_append(&b, CH_I("in_hidden", CAT("app"), 1)
		  CH("in_hidden", CAT("app"), "C", 1) ",\"args\":{\"value\":5}},\n");
	if (all)
		t2_append(&b, CH_I("j", CAT("noise"), 1));
	t2_append(&b, CH_X("inner", CAT("app"), 1));
	if (all)
		t2_append(&b, CH_X("hidden", CAT("noise"), 1) CH_X("hidden2", CAT("noise"), 1));
	t2_append(&b, CH_X("outer", CAT("app"), 1));
	if (f != ONLY_APP)
		t2_append(&b, CH_X("nocat", "", 1));
	t2_append(&b, CH_I("exit", "", 1));
	if (f != ONLY_APP)
		t2_append(&b, CH("test1", CAT("test"), "C", 1) ",\"args\":{\"intervals\":1,"
			  "\"total_us\":1000000.000,\"min_us\":1000000.000,\"max_us\":1000000.000}},\n"
			  CH("test1", CAT("test"), "C", 1) ",\"args\":{\"count\":3}},\n");
	t2_append(&b, CH_END);
	return b;
}

static char *want_rec(enum filter f)
{
	char *b = NULL;
	int all = f == NONE, d = all ? 1 : 0;

	t2_append(&b, "version main\n"
		  "region_enter main n=1 app/outer abs=1000000 rel=0\n"
		  "data main n=2 app/k abs=2000000 rel=1000000\n");
	if (all)
		t2_append(&b, "region_enter main n=2 noise/hidden abs=3000000 rel=0\n"
			  "data main n=3 noise/nk abs=4000000 rel=1000000\n");
	t2_append(&b, "data main n=%d app/in_hidden abs=5000000 rel=%s\n"
		  "region_enter main n=%d app/inner abs=6000000 rel=0\n"
		  "printf main\n", 2 + d, all ? "2000000" : "4000000", 2 + d);
	if (all)
		t2_append(&b, "data_json main n=4 noise/j abs=8000000 rel=2000000\n");
	t2_append(&b, "region_leave main n=%d app/inner abs=9000000 rel=3000000\n", 2 + d);
	if (all)
		t2_append(&b, "region_leave main n=2 noise/hidden abs=10000000 rel=7000000\n"
			  "region_enter main n=2 noise/hidden2 abs=11000000 rel=0\n"
			  "region_leave main n=2 noise/hidden2 abs=12000000 rel=1000000\n");
	t2_append(&b, "region_leave main n=1 app/outer abs=13000000 rel=12000000\n");
	if (f != ONLY_APP)
		t2_append(&b, "region_enter main n=1 (null)/nocat abs=14000000 rel=0\n"
			  "region_leave main n=1 (null)/nocat abs=15000000 rel=1000000\n");
	t2_append(&b, "exit main\n");
	if (f != ONLY_APP)
		t2_append(&b, "timer main test/test1\ncounter main test/test1\n");
	t2_append(&b, "atexit main\n");
	return b;
}

static void golden(enum filter f)
{
	struct outs o;
	char *w;

	run(sc_main, filter_text[f], NULL, &o);
	expect_text("normal", o.normal, w = want_normal(f));
	free(w);
	expect_text("perf", o.perf, w = want_perf(f));
	free(w);
	expect_text("event", o.event, w = want_event(f));
	free(w);
	expect_text("chrome", o.chrome, w = want_chrome(f));
	free(w);
	expect_text("rec", o.rec, w = want_rec(f));
	free(w);
	expect_text("stderr", o.err, "");
	assert_true(check_receiver_rule(o.event) > 0);
	outs_free(&o);
}

static void golden_no_filter(void **state)
{
	(void)state;
	golden(NONE);
}

static void golden_exclusions_only(void **state)
{
	(void)state;
	golden(NO_NOISE);
}

static void golden_one_inclusion(void **state)
{
	(void)state;
	golden(ONLY_APP);
}

/* The event target's limit counts written regions only: with a deep
 * limit the whole run passes the receiver's rule, filtered or not. */
static void golden_receiver_rule_deep(void **state)
{
	int f;

	(void)state;
	for (f = NONE; f <= ONLY_APP; f++) {
		struct outs o;

		run(sc_main, filter_text[f], "GIT_TRACE2_EVENT_NESTING=100", &o);
		assert_int_equal(check_receiver_rule(o.event), f == NONE ? 5 : f == NO_NOISE ? 3 : 2);
		outs_free(&o);
	}
}

/* ------------------------------------------------------------------ */
/* paired_*: regions paired by hand.                                    */
/* ------------------------------------------------------------------ */

static void *thread_w(void *arg)
{
	(void)arg;
	at(3); trace2_thread_start("w");
	at(4); trace2_region_enter("c", "t1", NULL);
	at(5); trace2_region_enter("c", "t2", NULL);
	at(6); trace2_thread_exit();
	return NULL;
}

/* ends without trace2_thread_exit(), its region open */
static void *thread_x(void *arg)
{
	(void)arg;
	at(7); trace2_thread_start("x");
	at(8); trace2_region_enter("c", "left", NULL);
	return NULL;
}

static void run_thread(void *(*fn)(void *))
{
	pthread_t t;

	CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
}

static void sc_paired(void)
{
	at(1); trace2_region_enter("c", "a", NULL);
	at(2); trace2_region_leave("c", "b", NULL);
	run_thread(thread_w);
	run_thread(thread_x);
	at(9); trace2_region_leave("c", "extra1", NULL);
	at(10); trace2_data_string("c", NULL, "after", "x");
	at(11); trace2_region_leave("c", "extra2", NULL);
	at(12); trace2_region_enter("c", "open", NULL);
	at(13); trace2_cmd_exit(0);
}

#define NO_REGION "no open regions in thread 'main'"
#define BUG_LINE "BUG: trace2/tr2_tls.c:120: " NO_REGION "\n"
#define EV_ERROR "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"" NO_REGION \
	"\",\"fmt\":\"no open regions in thread '%s'\"}\n"

/*
 * docs/api.md, "Regions" and "Threads": a leave closes the innermost region
 * whatever its label and prints its own; a thread's open regions end silently
 * with it (thread_exit, or nothing without the call); the first leave on an
 * empty stack pops the thread's base entry and is written at nesting 0
 * (t_rel: since the thread started), what follows has nesting 0 and a data
 * t_rel of 0; the next leave is the BUG (stderr, an error record, nothing
 * else); regions open at exit end silently.  Filtered ("-c"): every region of
 * c is gone but that first extra leave, which closes no region (it pops the
 * base entry, which is always written).
 */
static void paired(int filtered)
{
	char *perf_want = NULL, *event_want = NULL, *chrome_want = NULL, *rec_want = NULL;
	struct outs o;

	run(sc_paired, filtered ? "-c" : NULL, NULL, &o);

	perf(&perf_want, "main", "version", "", "", "", 1, TRACE2_VERSION_STRING);
	if (!filtered) {
		perf(&perf_want, "main", "region_enter", "1.000000", "", "c", 1, "label:a");
		perf(&perf_want, "main", "region_leave", "2.000000", "1.000000", "c", 1, "label:b");
	}
	perf(&perf_want, "th01:w", "thread_start", "3.000000", "", "", 1, "");
	if (!filtered) {
		perf(&perf_want, "th01:w", "region_enter", "4.000000", "", "c", 1, "label:t1");
		perf(&perf_want, "th01:w", "region_enter", "5.000000", "", "c", 2, "label:t2");
	}
	perf(&perf_want, "th01:w", "thread_exit", "6.000000", "3.000000", "", 1, "");
	perf(&perf_want, "th02:x", "thread_start", "7.000000", "", "", 1, "");
	if (!filtered)
		perf(&perf_want, "th02:x", "region_enter", "8.000000", "", "c", 1, "label:left");
	perf(&perf_want, "main", "region_leave", "9.000000", "9.000000", "c", 0, "label:extra1");
	if (!filtered)
		perf(&perf_want, "main", "data", "10.000000", "0.000000", "c", 0, "after:x");
	perf(&perf_want, "main", "error", "", "", "", 0, NO_REGION);
	if (!filtered)
		perf(&perf_want, "main", "region_enter", "12.000000", "", "c", 0, "label:open");
	perf(&perf_want, "main", "exit", "13.000000", "", "", 1, "code:0");
	perf(&perf_want, "main", "atexit", "13.000000", "", "", 1, "code:0");
	expect_text("perf", o.perf, perf_want);

	t2_append(&event_want, EV_VERSION);
	if (!filtered) {
		ev_enter(&event_want, "main", 1, "c", "a", NULL);
		ev_leave(&event_want, "main", "1.000000", 1, "c", "b", NULL);
	}
	t2_append(&event_want, EV "}\n", "thread_start", "th01:w");
	if (!filtered) {
		ev_enter(&event_want, "th01:w", 1, "c", "t1", NULL);
		ev_enter(&event_want, "th01:w", 2, "c", "t2", NULL);
	}
	t2_append(&event_want, EV ",\"t_rel\":3.000000}\n", "thread_exit", "th01:w");
	t2_append(&event_want, EV "}\n", "thread_start", "th02:x");
	if (!filtered)
		ev_enter(&event_want, "th02:x", 1, "c", "left", NULL);
	ev_leave(&event_want, "main", "9.000000", 0, "c", "extra1", NULL);
	if (!filtered)
		ev_data(&event_want, "10.000000", "0.000000", 0, "c", "after", "x");
	t2_append(&event_want, "%s", EV_ERROR);
	if (!filtered)
		ev_enter(&event_want, "main", 0, "c", "open", NULL);
	t2_append(&event_want, EV_EXIT("13.000000") EV_ATEXIT("13.000000"));
	expect_text("event", o.event, event_want);

	expect_text("normal", o.normal,
		    "version " TRACE2_VERSION_STRING "\nerror " NO_REGION "\n"
		    "exit elapsed:13.000000 code:0\natexit elapsed:13.000000 code:0\n");

	/* a slice has its enter's name; a thread's slices close at its
	 * thread_exit, or at exit (thread x's slot is th01's, reused, and
	 * comes first in the list); the extra leave closes nothing */
	t2_append(&chrome_want, CH_START);
	if (!filtered)
		t2_append(&chrome_want, CH_X("a", CAT("c"), 1));
	t2_append(&chrome_want, CH("thread_name", "", "M", 2) ",\"args\":{\"name\":\"th01:w\"}},\n");
	if (!filtered)
		t2_append(&chrome_want, CH_X("t2", CAT("c"), 2) CH_X("t1", CAT("c"), 2));
	t2_append(&chrome_want, CH("thread_name", "", "M", 3) ",\"args\":{\"name\":\"th02:x\"}},\n");
	if (!filtered)
		t2_append(&chrome_want, CH_I("after", CAT("c"), 1));
	t2_append(&chrome_want, CH_I("error", "", 1));
	t2_append(&chrome_want, CH_I("exit", "", 1));
	if (!filtered)
		t2_append(&chrome_want, CH_X("left", CAT("c"), 3) CH_X("open", CAT("c"), 1));
	t2_append(&chrome_want, CH_END);
	expect_text("chrome", o.chrome, chrome_want);

	t2_append(&rec_want, "version main\n");
	if (!filtered)
		t2_append(&rec_want, "region_enter main n=1 c/a abs=1000000 rel=0\n"
			  "region_leave main n=1 c/b abs=2000000 rel=1000000\n");
	t2_append(&rec_want, "thread_start th01:w\n");
	if (!filtered)
		t2_append(&rec_want, "region_enter th01:w n=1 c/t1 abs=4000000 rel=0\n"
			  "region_enter th01:w n=2 c/t2 abs=5000000 rel=0\n");
	t2_append(&rec_want, "thread_exit th01:w\nthread_start th02:x\n");
	if (!filtered)
		t2_append(&rec_want, "region_enter th02:x n=1 c/left abs=8000000 rel=0\n");
	t2_append(&rec_want, "region_leave main n=0 c/extra1 abs=9000000 rel=9000000\n");
	if (!filtered)
		t2_append(&rec_want, "data main n=0 c/after abs=10000000 rel=0\n");
	t2_append(&rec_want, "error main\n");
	if (!filtered)
		t2_append(&rec_want, "region_enter main n=0 c/open abs=12000000 rel=0\n");
	t2_append(&rec_want, "exit main\natexit main\n");
	expect_text("rec", o.rec, rec_want);

	expect_text("stderr", o.err, BUG_LINE);
	free(perf_want);
	free(event_want);
	free(chrome_want);
	free(rec_want);
	outs_free(&o);
}

static void paired_as_git(void **state)
{
	(void)state;
	paired(0);
}

static void paired_filtered(void **state)
{
	(void)state;
	paired(1);
}

/* ------------------------------------------------------------------ */
/* patterns_*: the pattern language.                                    */
/* ------------------------------------------------------------------ */

struct verdict {
	const char *list;
	const char *category; /* NULL: the NULL category */
	int want;
};

static const struct verdict verdicts[] = {
	{ "app", "app", 1 },
	{ "app", "ap", 0 },
	{ "app", "apps", 0 },
	{ "app", "App", 0 },          /* case-sensitive */
	{ "a*", "app", 1 },
	{ "a*", "a", 1 },
	{ "a*", "ba", 0 },
	{ "*", "", 1 },
	{ "a?p", "app", 1 },
	{ "a?p", "ap", 0 },
	{ "*x*y", "axxby", 1 },
	{ "*x*y", "axxyb", 0 },
	{ "a*b*c", "aXbYbZc", 1 },
	{ "a[b]", "a[b]", 1 },        /* only * and ? are special */
	{ "a[b]", "ab", 0 },
	{ "-noise", "app", 1 },       /* only exclusions: the rest passes */
	{ "-noise", "noise", 0 },
	{ "-noise", NULL, 1 },
	{ "-a*,-b*", "zzz", 1 },
	{ "-a*,-b*", "bee", 0 },
	{ "app", NULL, 0 },           /* an inclusion: the rest is filtered */
	{ "-a*,app", "zzz", 0 },
	{ "-a*,app", "apple", 0 },
	{ "-a*,app", "app", 1 },      /* the last match wins */
	{ "app,-a*", "app", 0 },
	{ "*,-n*", "noise", 0 },
	{ "*,-n*", "app", 1 },
	{ "*,-n*", NULL, 1 },         /* NULL is "", which "*" matches */
	{ "-n*,noisy", "noisy", 1 },
	{ "noisy,-n*", "noisy", 0 },
	{ "-", NULL, 0 },             /* "-" excludes the empty category */
	{ "-", "", 0 },
	{ "-", "x", 1 },
	{ "?", NULL, 0 },
	{ "?", "x", 1 },
	{ " app , data ", "data", 1 }, /* items are trimmed */
	{ " app , data ", " app", 0 },
	{ ",,", "x", 1 },             /* no pattern: no filter */
	{ ",,", NULL, 1 },
	{ "", "x", 1 },
};

static void check_verdict(void *arg)
{
	const struct verdict *v = arg;
	char copy[64];
	int i;

	trace2_initialize();
	if (v->category)
		snprintf(copy, sizeof(copy), "%s", v->category);
	/* twice (the second from the cache), and from another pointer */
	for (i = 0; i < 2; i++)
		if (trace2_category_enabled(v->category) != v->want ||
		    (v->category && trace2_category_enabled(copy) != v->want)) {
			fprintf(stderr, "list '%s', category '%s': not %d\n", v->list,
				v->category ? v->category : "(NULL)", v->want);
			_exit(70);
		}
}

static void run_checked(t2_scenario_fn *fn, void *arg, const struct t2_env *env)
{
	struct t2_proc p;

	t2_capture(fn, arg, t2_env_list(env), 30, &p);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("status 0x%x: %s", p.status, p.err);
	t2_proc_free(&p);
}

static void patterns_semantics(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		struct t2_env env = { 0 };

		t2_env_add(&env, "GIT_TRACE2_EVENT=/dev/null");
		t2_env_add(&env, "GIT_TRACE2_CATEGORIES=%s", verdicts[i].list);
		run_checked(check_verdict, (void *)&verdicts[i], &env);
		t2_env_free(&env);
	}
}

/* trace2.categories in the global config file; the environment wins. */
static void patterns_config_key(void **state)
{
	static const struct verdict from_config = { "[config] -app", "app", 0 };
	static const struct verdict env_wins = { "app", "app", 1 };
	char *dir = t2_tmpdir(), *cfg = t2_path(dir, ".gitconfig");
	struct t2_env env = { 0 };

	(void)state;
	assert_int_equal(t2_write_file(cfg, "[trace2]\n\tcategories = -app\n"), 0);
	t2_env_add(&env, "HOME=%s", dir);
	t2_env_add(&env, "GIT_TRACE2_EVENT=/dev/null");
	run_checked(check_verdict, (void *)&from_config, &env);
	t2_env_add(&env, "GIT_TRACE2_CATEGORIES=app");
	run_checked(check_verdict, (void *)&env_wins, &env);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(cfg);
	free(dir);
}

/* While tracing is off there is nothing to build a payload for. */
static void patterns_tracing_off(void **state)
{
	static const struct verdict off = { "(no target)", "app", 0 };
	static const struct verdict off_null = { "(no target)", NULL, 0 };
	struct t2_env env = { 0 };

	(void)state;
	t2_env_add(&env, "GIT_TRACE2_CATEGORIES=app");
	run_checked(check_verdict, (void *)&off, &env);
	run_checked(check_verdict, (void *)&off_null, &env);
	t2_env_free(&env);
}

/* The cache is keyed by pointer but checks the text: a buffer reused for
 * other categories, long names, and more names than the cache holds. */
static void check_changing_texts(void *arg)
{
	static char names[600][48];
	char buf[64];
	int i, round;

	(void)arg;
	trace2_initialize();
	for (round = 0; round < 3; round++) {
		strcpy(buf, "noise");
		CHECK(trace2_category_enabled(buf) == 0);
		strcpy(buf, "noisy");
		CHECK(trace2_category_enabled(buf) == 1);
		strcpy(buf, "n");
		CHECK(trace2_category_enabled(buf) == 1);
		strcpy(buf, "noise");
		CHECK(trace2_category_enabled(buf) == 0);
		strcpy(buf, "noise.a-category-name-longer-than-the-cache-keeps");
		CHECK(trace2_category_enabled(buf) == 0);
		strcpy(buf, "other.a-category-name-longer-than-the-cache-keeps");
		CHECK(trace2_category_enabled(buf) == 1);
		for (i = 0; i < 600; i++) {
			snprintf(names[i], sizeof(names[i]), "%s%d", i % 3 ? "k" : "noise.", i);
			CHECK(trace2_category_enabled(names[i]) == !!(i % 3));
		}
	}
}

static void patterns_cache_checks_text(void **state)
{
	struct t2_env env = { 0 };

	(void)state;
	t2_env_add(&env, "GIT_TRACE2_EVENT=/dev/null");
	t2_env_add(&env, "GIT_TRACE2_CATEGORIES=-noise*");
	run_checked(check_changing_texts, NULL, &env);
	t2_env_free(&env);
}

/* ------------------------------------------------------------------ */
/* model_*: random region trees under random filters.                   */
/* ------------------------------------------------------------------ */

#define OPS 200

static const char *const model_cats[] = { "a", "b", "ab", "ba", "c", NULL };
static const char *const model_lists[] = {
	"a*", "-b", "a,-ab", "-a*,c", "*,-?", "b*,-ba,c", "-", "?",
};

struct op {
	char kind;           /* 'e' enter, 'l' leave, 'd' data */
	const char *category;
	char label[16];
};

static struct op ops[OPS];
static int nops;

static void sc_ops(void)
{
	int i;

	for (i = 0; i < nops; i++) {
		at(i + 1);
		if (ops[i].kind == 'e')
			trace2_region_enter(ops[i].category, ops[i].label, NULL);
		else if (ops[i].kind == 'l')
			trace2_region_leave(ops[i].category, ops[i].label, NULL);
		else
			trace2_data_string(ops[i].category, NULL, ops[i].label, "v");
	}
	at(nops + 1);
	trace2_cmd_exit(0);
}

/* The oracle: libc's fnmatch() (the lists use no bracket or backslash),
 * the last matching pattern deciding. */
static int model_passes(const char *list, const char *category)
{
	char **items = t2_split(list, ",", NULL);
	int i, verdict = -1, only_exclusions = 1;

	for (i = 0; items[i]; i++) {
		int exclude = items[i][0] == '-';

		if (!*items[i])
			continue;
		only_exclusions &= exclude;
		if (!fnmatch(items[i] + exclude, category ? category : "", 0))
			verdict = !exclude;
	}
	t2_strv_free(items);
	return verdict >= 0 ? verdict : only_exclusions;
}

/* Random ops (a tree, every region closed) and the registered target's
 * lines "as if the filtered regions had never been entered". */
static char *model_run(unsigned seed, const char *list)
{
	struct { int written; uint64_t start; int op; } stack[OPS];
	int depth = 0, written = 0, i;
	uint64_t now;
	char *want = NULL;

	srand(seed);
	nops = 0;
	while (nops + depth + 1 < OPS) { /* room for this op and every leave */
		struct op *o = &ops[nops];
		int r = rand() % 10;

		o->category = model_cats[rand() % 6];
		if (depth && r < 4) {
			o->kind = 'l';
			*o = ops[stack[--depth].op];
			o->kind = 'l';
		} else {
			o->kind = r < 8 ? 'e' : 'd';
			snprintf(o->label, sizeof(o->label), "L%d", nops);
			if (o->kind == 'e')
				stack[depth++].op = nops;
		}
		nops++;
	}
	while (depth) {
		ops[nops] = ops[stack[--depth].op];
		ops[nops++].kind = 'l';
	}

	t2_append(&want, "version main\n");
	for (i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		int pass = model_passes(list, o->category);
		uint64_t innermost = 0;
		int k;

		now = (uint64_t)(i + 1) * 1000000u;
		for (k = depth - 1; k >= 0 && !innermost; k--)
			if (stack[k].written)
				innermost = stack[k].start;
		if (o->kind == 'e') {
			stack[depth].written = pass;
			stack[depth++].start = now;
			if (pass)
				t2_append(&want, "region_enter main n=%d %s/%s abs=%llu rel=0\n",
					  ++written, str(o->category), o->label,
					  (unsigned long long)now);
		} else if (o->kind == 'l') {
			if (stack[--depth].written)
				t2_append(&want, "region_leave main n=%d %s/%s abs=%llu rel=%llu\n",
					  written--, str(o->category), o->label,
					  (unsigned long long)now,
					  (unsigned long long)(now - stack[depth].start));
		} else if (pass) {
			t2_append(&want, "data main n=%d %s/%s abs=%llu rel=%llu\n", written + 1,
				  str(o->category), o->label, (unsigned long long)now,
				  (unsigned long long)(now - innermost));
		}
	}
	t2_append(&want, "exit main\natexit main\n");
	return want;
}

static void model_random_trees(void **state)
{
	unsigned seed;

	(void)state;
	for (seed = 1; seed <= 24; seed++) {
		const char *list = model_lists[seed % 8];
		char *want = model_run(seed, list);
		struct outs o;

		run(sc_ops, list, "GIT_TRACE2_EVENT_NESTING=1000", &o);
		if (strcmp(o.rec, want))
			fail_msg("seed %u, list '%s':\n--- got:\n%s--- want:\n%s", seed, list,
				 o.rec, want);
		check_receiver_rule(o.event);
		free(want);
		outs_free(&o);
	}
}

/* ------------------------------------------------------------------ */
/* threads_*: verdicts from several threads at once (also under TSan).  */
/* ------------------------------------------------------------------ */

#define NAMES 400

static char thread_names[NAMES][16];

static void *ask_verdicts(void *arg)
{
	int i, round, bad = 0;

	(void)arg;
	for (round = 0; round < 50; round++)
		for (i = 0; i < NAMES; i++)
			bad += trace2_category_enabled(thread_names[i]) != (i % 4 != 0);
	return (void *)(intptr_t)bad;
}

static void check_threads(void *arg)
{
	pthread_t t[4];
	void *bad;
	int i;

	(void)arg;
	for (i = 0; i < NAMES; i++)
		snprintf(thread_names[i], sizeof(thread_names[i]), "%s%d", i % 4 ? "ok" : "no", i);
	trace2_initialize();
	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, ask_verdicts, NULL) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(pthread_join(t[i], &bad) == 0);
		CHECK(bad == NULL);
	}
}

static void threads_verdicts(void **state)
{
	struct t2_env env = { 0 };

	(void)state;
	t2_env_add(&env, "GIT_TRACE2_EVENT=/dev/null");
	t2_env_add(&env, "GIT_TRACE2_CATEGORIES=ok*");
	run_checked(check_threads, NULL, &env);
	t2_env_free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_no_filter),
		cmocka_unit_test(golden_exclusions_only),
		cmocka_unit_test(golden_one_inclusion),
		cmocka_unit_test(golden_receiver_rule_deep),
		cmocka_unit_test(paired_as_git),
		cmocka_unit_test(paired_filtered),
		cmocka_unit_test(patterns_semantics),
		cmocka_unit_test(patterns_config_key),
		cmocka_unit_test(patterns_tracing_off),
		cmocka_unit_test(patterns_cache_checks_text),
		cmocka_unit_test(model_random_trees),
		cmocka_unit_test(threads_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
