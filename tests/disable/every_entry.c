/*
 * Every public entry point of trace2.h, trace2/target.h and trace2/run.h, built with
 * -DTRACE2_DISABLE and without the library (tests/lib/test_disable.sh): it
 * must build with -Wall -Wextra -Werror, link, run, return what the API
 * returns while tracing is off, and evaluate arguments as the API says
 * (macros: not at all; trace2_cmd_exit(): once; functions: once).
 */
#include "trace2/target.h"
#include "trace2/run.h"

#include <stdio.h>
#include <string.h>

static int evaluated;

static const char *count(const char *s)
{
	evaluated++;
	return s;
}

static int fails;

#define EXPECT(cond) \
	((cond) ? (void)0 : (void)(fails++, fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond)))

static void bug_handler(const char *file, int line, const char *fmt, va_list ap)
{
	(void)file; (void)line; (void)fmt; (void)ap;
}

static void config_entry(const char *key, const char *value, enum config_scope scope, void *ctx)
{
	(void)key; (void)value; (void)scope; (void)ctx;
}

static void config_hook(trace2_config_entry_fn *entry, void *ctx)
{
	entry("a.b", "c", CONFIG_SCOPE_COMMAND, ctx);
}

static void target_event(void *ctx, const struct trace2_event *ev)
{
	(void)ctx;
	(void)trace2_event_name(ev->kind);
	(void)trace2_event_local_time(ev);
	(void)trace2_event_utc_time(ev);
}

static const struct trace2_target target = {
	TRACE2_TARGET_ABI_VERSION, "off", NULL, 0, NULL, target_event, NULL, NULL
};

static void va_calls(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_cmd_error_va(fmt, ap);
	trace2_cmd_error_va_fl(__FILE__, __LINE__, fmt, ap);
	trace2_printf_va(fmt, ap);
	trace2_printf_va_fl(__FILE__, __LINE__, fmt, ap);
	trace2_region_enter_printf_va("c", "l", NULL, fmt, ap);
	trace2_region_enter_printf_va_fl(__FILE__, __LINE__, "c", "l", NULL, fmt, ap);
	trace2_region_leave_printf_va("c", "l", NULL, fmt, ap);
	trace2_region_leave_printf_va_fl(__FILE__, __LINE__, "c", "l", NULL, fmt, ap);
	va_end(ap);
}

static int scoped(int n)
{
	TRACE2_REGION(count("c"), "scoped", NULL);
	TRACE2_REGION_PRINTF("c", "scoped", NULL, "%s", count("x"));
	if (n)
		return n;
	return 0;
}

int main(int argc, char **argv)
{
	const char *args[] = { "prog", "x", NULL };
	struct repository repo = { NULL, 0 };
	struct child_process cp = CHILD_PROCESS_INIT;
	struct key_value_info kvi = KVI_INIT;
	struct json_writer jw = JSON_WRITER_INIT, sub = JSON_WRITER_INIT;
	void (*timer_fn)(enum trace2_timer_id) = trace2_timer_start;
	int (*enabled_fn)(void) = trace2_is_enabled;
	enum trace2_timer_id tid;
	enum trace2_counter_id cid;

	(void)argc;
	EXPECT(!strcmp(trace2_version(), TRACE2_VERSION_STRING));
	trace2_set_version_string("v");
	trace2_set_fatal_exit_code(128);
	trace2_set_bug_handler(bug_handler);
	trace2_set_config_hook(config_hook);
	EXPECT(trace2_config_read_file("/nonexistent", CONFIG_SCOPE_SYSTEM, config_entry, NULL) == -1);
	EXPECT(trace2_config_set("trace2.perfTarget", "/tmp/x") == 0);
	trace2_set_env_prefix("MYAPP");
	trace2_set_config_files(NULL, NULL);
	EXPECT(trace2_register_target(&target, NULL) == 0);
	EXPECT(trace2_output_write(NULL, "x", 1, NULL) == -1);
	EXPECT(trace2_output_set_head(NULL, "[", 1) == -1);
	EXPECT(trace2_output_set_full_line(NULL, NULL) == -1);
	EXPECT(trace2_json_escape(NULL, 0, "\"", 1) == 0);
	EXPECT(trace2_utf8_repair(NULL, 0, "\xFF", 1) == 0);
	trace2_initialize_clock();
	trace2_initialize();
	trace2_initialize_fl(__FILE__, __LINE__);
	EXPECT(trace2_is_enabled() == 0);
	EXPECT(enabled_fn() == 0);
	EXPECT(!TRACE2_ACTIVE());
	EXPECT(!strcmp(trace2_session_id(), ""));

	/* Macros: no argument is evaluated. */
	trace2_cmd_start((const char **)count((const char *)argv));
	trace2_cmd_error("%s", count("e"));
	trace2_cmd_path(count("/p"));
	trace2_cmd_ancestry(args);
	trace2_cmd_name(count("n"));
	trace2_cmd_mode(count("m"));
	trace2_cmd_alias(count("a"), args);
	trace2_cmd_list_config();
	trace2_cmd_list_env_vars();
	trace2_cmd_set_config(count("k"), "v");
	trace2_def_param(count("p"), "v", &kvi);
	trace2_def_repo(&repo);
	trace2_child_start(&cp);
	trace2_child_exit(&cp, 0);
	trace2_child_ready(&cp, count("ready"));
	EXPECT(trace2_exec(count("git"), args) == -1);
	trace2_exec_result(1, 0);
	trace2_thread_start(count("t"));
	trace2_thread_exit();
	trace2_region_enter(count("c"), "l", &repo);
	trace2_region_enter_printf("c", "l", NULL, "%s", count("m"));
	trace2_region_leave(count("c"), "l", &repo);
	trace2_region_leave_printf("c", "l", NULL, "%s", count("m"));
	trace2_data_string(count("c"), NULL, "k", "v");
	trace2_data_intmax("c", NULL, count("k"), 1);
	trace2_data_json("c", NULL, count("k"), &jw);
	trace2_printf("%s", count("p"));
	trace2_timer_start(TRACE2_TIMER_ID_TEST1 + (count("t") != NULL));
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, (uint64_t)(count("c") != NULL));
	va_calls("%d", 1);
	EXPECT(evaluated == 0);

	/* Functions: arguments evaluated once, as in any call. */
	trace2_cmd_start_fl(__FILE__, __LINE__, (const char **)argv);
	trace2_cmd_error_fl(__FILE__, __LINE__, "%s", count("e"));
	trace2_cmd_path_fl(__FILE__, __LINE__, "/p");
	trace2_cmd_ancestry_fl(__FILE__, __LINE__, args);
	trace2_cmd_name_fl(__FILE__, __LINE__, "n");
	trace2_cmd_mode_fl(__FILE__, __LINE__, "m");
	trace2_cmd_alias_fl(__FILE__, __LINE__, "a", args);
	trace2_cmd_list_config_fl(__FILE__, __LINE__);
	trace2_cmd_list_env_vars_fl(__FILE__, __LINE__);
	trace2_cmd_set_config_fl(__FILE__, __LINE__, "k", "v");
	trace2_def_param_fl(__FILE__, __LINE__, "p", "v", &kvi);
	trace2_def_repo_fl(__FILE__, __LINE__, &repo);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_child_start_fl(__FILE__, __LINE__, &cp);
	trace2_child_exit_fl(__FILE__, __LINE__, &cp, 0);
	trace2_child_ready_fl(__FILE__, __LINE__, &cp, "ready");
	EXPECT(trace2_exec_fl(__FILE__, __LINE__, "git", args) == -1);
	trace2_exec_result_fl(__FILE__, __LINE__, 1, 0);
	{
		/* compiled out, it still runs the command, untraced */
		const char *exit3[] = { "sh", "-c", "exit 3", NULL }, *none[] = { "t2-none", NULL };

		EXPECT(trace2_run_command(exit3, "cls") == 3);
		EXPECT(trace2_run_command(none, NULL) == -1);
	}
	trace2_thread_start_fl(__FILE__, __LINE__, "t");
	trace2_thread_exit_fl(__FILE__, __LINE__);
	trace2_region_enter_fl(__FILE__, __LINE__, "c", "l", NULL);
	trace2_region_enter_printf_fl(__FILE__, __LINE__, "c", "l", NULL, "%d", 1);
	trace2_region_leave_fl(__FILE__, __LINE__, "c", "l", NULL);
	trace2_region_leave_printf_fl(__FILE__, __LINE__, "c", "l", NULL, "%d", 1);
	trace2_data_string_fl(__FILE__, __LINE__, "c", NULL, "k", "v");
	trace2_data_intmax_fl(__FILE__, __LINE__, "c", NULL, "k", 1);
	trace2_data_json_fl(__FILE__, __LINE__, "c", NULL, "k", &jw);
	trace2_printf_fl(__FILE__, __LINE__, "%s", "p");
	tid = trace2_timer_define(count("c"), "t", 0);
	cid = trace2_counter_define("c", "t", 1);
	EXPECT(tid >= 0 && cid >= 0);
	(trace2_timer_start)(tid);
	(trace2_timer_stop)(tid);
	(trace2_counter_add)(cid, 1);
	timer_fn(tid);
	EXPECT(scoped(3) == 3);
	/* TRACE2_REGION evaluates its category (label, repo) once, on or off. */
	EXPECT(evaluated == 3);

	jw_init(&jw);
	jw_object_begin(&jw, 0);
	jw_object_string(&jw, "k", "v");
	jw_object_intmax(&jw, "k", 1);
	jw_object_double(&jw, "k", 2, 1.5);
	jw_object_true(&jw, "k");
	jw_object_false(&jw, "k");
	jw_object_bool(&jw, "k", 1);
	jw_object_null(&jw, "k");
	jw_array_begin(&sub, 1);
	jw_array_string(&sub, "v");
	jw_array_intmax(&sub, 1);
	jw_array_double(&sub, 2, 1.5);
	jw_array_true(&sub);
	jw_array_false(&sub);
	jw_array_bool(&sub, 0);
	jw_array_null(&sub);
	jw_array_argc_argv(&sub, 1, args);
	jw_array_argv(&sub, args);
	jw_array_inline_begin_object(&sub);
	jw_end(&sub);
	jw_array_inline_begin_array(&sub);
	jw_end(&sub);
	jw_array_sub_jw(&sub, &jw);
	jw_end(&sub);
	jw_object_sub_jw(&jw, "s", &sub);
	jw_object_inline_begin_object(&jw, "o");
	jw_end(&jw);
	jw_object_inline_begin_array(&jw, "a");
	jw_end(&jw);
	jw_end(&jw);
	EXPECT(!jw_is_terminated(&jw));
	jw_release(&sub);
	jw_release(&jw);

	EXPECT(!trace2_category_enabled("app"));
	trace2_flush();
	trace2_reopen();
	EXPECT(trace2_cmd_exit_fl(__FILE__, __LINE__, 4) == 4);
	evaluated = 0;
	if (trace2_cmd_exit((evaluated++, 7)) != 7 || evaluated != 1)
		fails++;
	printf("fails=%d\n", fails);
	return fails ? 1 : 0;
}
