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
 * passes trace2receiver's nesting rule (consumers.md).
 * paired_*: a leave with the wrong label, a thread ending with regions
 * open (with and without trace2_thread_exit()), a leave on an empty
 * stack (the first written at nesting 0, the second Git's BUG), a region
 * open at exit: Git's output (api.md 2.21, 2.25) on every target, with
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

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

static int faking;        /* set in scenario children only */
static uint64_t fake_us;  /* atomic: the monotonic time they read */

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t us;

	if (!faking || id != CLOCK_MONOTONIC)
		return __real_clock_gettime(id, ts);
	us = __atomic_load_n(&fake_us, __ATOMIC_RELAXED);
	ts->tv_sec = (time_t)(us / 1000000);
	ts->tv_nsec = (long)(us % 1000000) * 1000;
	return 0;
}

/* The clock reads `s` seconds after the process start. */
static void at(int s)
{
	__atomic_store_n(&fake_us, (uint64_t)(1000 + s) * 1000000u, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* The registered target.                                               */
/* ------------------------------------------------------------------ */

static int rec_fd = -1;

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

static void rec_event(void *ctx, const struct trace2_event *ev)
{
	char line[512];
	int n;

	(void)ctx;
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
	case TRACE2_EVENT_REGION_LEAVE:
		n = snprintf(line, sizeof(line), "%s %s n=%zu %s/%s abs=%llu rel=%llu\n",
			     trace2_event_name(ev->kind), ev->thread->name, ev->nesting,
			     str(ev->region.category), str(ev->region.label),
			     (unsigned long long)ev->t_abs_us, (unsigned long long)ev->t_rel_us);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		n = snprintf(line, sizeof(line), "%s %s n=%zu %s/%s abs=%llu rel=%llu\n",
			     trace2_event_name(ev->kind), ev->thread->name, ev->nesting,
			     str(ev->data.category), str(ev->data.key),
			     (unsigned long long)ev->t_abs_us, (unsigned long long)ev->t_rel_us);
		break;
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_TH_TIMER:
		n = snprintf(line, sizeof(line), "%s %s %s/%s\n", trace2_event_name(ev->kind),
			     ev->thread->name, str(ev->timer.category), str(ev->timer.name));
		break;
	case TRACE2_EVENT_COUNTER:
	case TRACE2_EVENT_TH_COUNTER:
		n = snprintf(line, sizeof(line), "%s %s %s/%s\n", trace2_event_name(ev->kind),
			     ev->thread->name, str(ev->counter.category), str(ev->counter.name));
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
	faking = 1;
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

static void ev_enter(char **b, const char *thread, int nesting, const char *cat,
		     const char *label, const char *msg)
{
	t2_append(b, EV ",\"nesting\":%d", "region_enter", thread, nesting);
	if (cat)
		t2_append(b, ",\"category\":\"%s\"", cat);
	t2_append(b, ",\"label\":\"%s\"", label);
	if (msg)
		t2_append(b, ",\"msg\":\"%s\"", msg);
	t2_append(b, "}\n");
}

static void ev_leave(char **b, const char *thread, const char *rel, int nesting,
		     const char *cat, const char *label, const char *msg)
{
	t2_append(b, EV ",\"t_rel\":%s,\"nesting\":%d", "region_leave", thread, rel, nesting);
	if (cat)
		t2_append(b, ",\"category\":\"%s\"", cat);
	t2_append(b, ",\"label\":\"%s\"", label);
	if (msg)
		t2_append(b, ",\"msg\":\"%s\"", msg);
	t2_append(b, "}\n");
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
#define CH_START "[\n" CH("thread_name", "", "M", 1) ",\"args\":{\"name\":\"main\"}},\n" \
	CH("process", CAT("process"), "B", 1) "},\n"
#define CH_END CH("process", CAT("process"), "E", 1) "},\n"
#define CH_B(name, cat, tid) CH(name, cat, "B", tid) "},\n"
#define CH_E(name, cat, tid) CH(name, cat, "E", tid) "},\n"
#define CH_I(name, cat, tid) CH(name, cat, "i", tid) ",\"s\":\"t\"},\n"

/* An integer member, or -1 if absent or no number. */
static int json_int(const struct tjson *v, const char *key)
{
	const struct tjson *m = tjson_get(v, key);

	return m && m->type == TJSON_NUMBER ? (int)m->number : -1;
}

/*
 * trace2receiver's rule (consumers.md): per thread, a region_enter's
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

	t2_append(&b, CH_START CH_B("outer", CAT("app"), 1) CH_I("k", CAT("app"), 1));
	if (all)
		t2_append(&b, CH_B("hidden", CAT("noise"), 1) CH_I("nk", CAT("noise"), 1));
	t2_append(&b, CH_I("in_hidden", CAT("app"), 1)
		  CH("in_hidden", CAT("app"), "C", 1) ",\"args\":{\"value\":5}},\n"
		  CH_B("inner", CAT("app"), 1));
	if (all)
		t2_append(&b, CH_I("j", CAT("noise"), 1));
	t2_append(&b, CH_E("inner", CAT("app"), 1));
	if (all)
		t2_append(&b, CH_E("hidden", CAT("noise"), 1) CH_B("hidden2", CAT("noise"), 1)
			  CH_E("hidden2", CAT("noise"), 1));
	t2_append(&b, CH_E("outer", CAT("app"), 1));
	if (f != ONLY_APP)
		t2_append(&b, CH_B("nocat", "", 1) CH_E("nocat", "", 1));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_no_filter),
		cmocka_unit_test(golden_exclusions_only),
		cmocka_unit_test(golden_one_inclusion),
		cmocka_unit_test(golden_receiver_rule_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
