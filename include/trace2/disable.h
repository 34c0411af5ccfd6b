/*
 * libtrace2 compiled out: trace2.h includes this file when the program is
 * built with -DTRACE2_DISABLE (never the library itself).
 *
 * Every function of the API is defined here, before trace2.h declares
 * it, as a static inline no-op with its own name and parameters that
 * returns what the function returns while tracing is off.  A function
 * first defined static keeps internal linkage when it is declared again
 * (C and C++ alike), so every call, every macro and every function
 * pointer uses these: the program refers to no trace2_ symbol and links
 * without the library.  TRACE2_ACTIVE() is the constant 0, so the
 * macros evaluate their arguments exactly as they do while tracing is
 * off (not at all; trace2_cmd_exit()'s code once).
 *
 * A new public function needs one static inline definition here (same
 * name, return type and parameters, each parameter used as (void)name,
 * "tracing off" return value), in the section of its header part.
 *
 * What differs from a library that is off: trace2_session_id() returns
 * "", trace2_config_read_file() reads nothing and returns -1,
 * trace2_timer_define() and trace2_counter_define() return the first
 * defined id, and the trace2_jw_*() functions build nothing (the
 * writer's text stays empty, trace2_jw_is_terminated() is 0).
 */
#ifndef TRACE2_DISABLE_H
#define TRACE2_DISABLE_H

#undef TRACE2_ACTIVE
#define TRACE2_ACTIVE() 0

/* The format attribute goes on the definitions (clang rejects it on a
 * declaration that follows one). */
#undef TRACE2_PRINTF
#define TRACE2_PRINTF(f, a)
#if defined(__GNUC__) || defined(__clang__)
#define TRACE2_OFF_FORMAT_(f, a) __attribute__((format(printf, f, a)))
#define TRACE2_OFF_UNUSED_ __attribute__((unused))
#else
#define TRACE2_OFF_FORMAT_(f, a)
#define TRACE2_OFF_UNUSED_
#endif

/* The empty array of TRACE2_STRVEC_INIT, the program's own. */
static const char *trace2_off_empty_strvec_[1] TRACE2_OFF_UNUSED_;
#undef TRACE2_STRVEC_INIT
#define TRACE2_STRVEC_INIT { trace2_off_empty_strvec_, 0, 0 }

/* ---- Library identity, host settings, process life-cycle ---- */
static inline const char *trace2_version(void) { return TRACE2_VERSION_STRING; }
static inline void trace2_set_version_string(const char *version) { (void)version; }
static inline void trace2_set_fatal_exit_code(int code) { (void)code; }
static inline void trace2_set_bug_handler(void (*fn)(const char *, int, const char *,
					  va_list))
{
	(void)fn;
}
static inline void trace2_set_config_hook(void (*hook)(void (*)(const char *, const char *,
								  enum trace2_config_scope,
								  void *),
							 void *))
{
	(void)hook;
}
static inline int trace2_config_read_file(const char *path, enum trace2_config_scope scope,
					  void (*entry)(const char *, const char *,
							enum trace2_config_scope, void *),
					  void *ctx)
{
	(void)path; (void)scope; (void)entry; (void)ctx;
	return -1;
}
static inline void trace2_initialize_clock(void) {}
static inline void trace2_initialize_fl(const char *file, int line)
{
	(void)file; (void)line;
}
static inline int trace2_is_enabled(void) { return 0; }
static inline void trace2_cmd_start_fl(const char *file, int line, const char **argv)
{
	(void)file; (void)line; (void)argv;
}
static inline int trace2_cmd_exit_fl(const char *file, int line, int code)
{
	(void)file; (void)line;
	return code;
}
static inline void trace2_cmd_error_va_fl(const char *file, int line, const char *fmt,
					  va_list ap)
{
	(void)file; (void)line; (void)fmt; (void)ap;
}
static inline TRACE2_OFF_FORMAT_(3, 4) void trace2_cmd_error_fl(const char *file, int line,
								const char *fmt, ...)
{
	(void)file; (void)line; (void)fmt;
}
static inline void trace2_cmd_path_fl(const char *file, int line, const char *pathname)
{
	(void)file; (void)line; (void)pathname;
}
static inline void trace2_cmd_ancestry_fl(const char *file, int line,
					  const char **parent_names)
{
	(void)file; (void)line; (void)parent_names;
}
static inline void trace2_cmd_name_fl(const char *file, int line, const char *name)
{
	(void)file; (void)line; (void)name;
}
static inline void trace2_cmd_mode_fl(const char *file, int line, const char *mode)
{
	(void)file; (void)line; (void)mode;
}
static inline void trace2_cmd_alias_fl(const char *file, int line, const char *alias,
				       const char **argv)
{
	(void)file; (void)line; (void)alias; (void)argv;
}
static inline void trace2_cmd_list_config_fl(const char *file, int line)
{
	(void)file; (void)line;
}
static inline void trace2_cmd_list_env_vars_fl(const char *file, int line)
{
	(void)file; (void)line;
}
static inline void trace2_cmd_set_config_fl(const char *file, int line, const char *key,
					    const char *value)
{
	(void)file; (void)line; (void)key; (void)value;
}
static inline void trace2_def_param_fl(const char *file, int line, const char *param,
				       const char *value,
				       const struct trace2_key_value_info *kvi)
{
	(void)file; (void)line; (void)param; (void)value; (void)kvi;
}
static inline void trace2_def_repo_fl(const char *file, int line,
				      struct trace2_repository *repo)
{
	(void)file; (void)line; (void)repo;
}
static inline void trace2_collect_process_info(enum trace2_process_info_reason reason)
{
	(void)reason;
}
static inline const char *trace2_session_id(void) { return ""; }
/* ---- Embedding: configuration and long-running hosts ---- */

static inline int trace2_config_set(const char *key, const char *value)
{
	(void)key; (void)value;
	return 0;
}
static inline void trace2_set_env_prefix(const char *prefix) { (void)prefix; }
static inline void trace2_set_config_files(const char *system_path, const char *global_path)
{
	(void)system_path; (void)global_path;
}
static inline void trace2_flush(void) {}
static inline void trace2_reopen(void) {}

/* ---- Category filters ---- */

static inline int trace2_category_enabled(const char *category)
{
	(void)category;
	return 0;
}

/* ---- Child processes, exec, threads ---- */
static inline void trace2_child_start_fl(const char *file, int line,
					 struct trace2_child_process *cmd)
{
	(void)file; (void)line; (void)cmd;
}
static inline void trace2_child_exit_fl(const char *file, int line,
					struct trace2_child_process *cmd,
					int child_exit_code)
{
	(void)file; (void)line; (void)cmd; (void)child_exit_code;
}
static inline void trace2_child_ready_fl(const char *file, int line,
					 struct trace2_child_process *cmd,
					 const char *ready)
{
	(void)file; (void)line; (void)cmd; (void)ready;
}
static inline int trace2_exec_fl(const char *file, int line, const char *exe,
				 const char **argv)
{
	(void)file; (void)line; (void)exe; (void)argv;
	return -1;
}
static inline void trace2_exec_result_fl(const char *file, int line, int exec_id, int code)
{
	(void)file; (void)line; (void)exec_id; (void)code;
}
static inline void trace2_thread_start_fl(const char *file, int line,
					  const char *thread_base_name)
{
	(void)file; (void)line; (void)thread_base_name;
}
static inline void trace2_thread_exit_fl(const char *file, int line)
{
	(void)file; (void)line;
}
/* ---- Regions, data, messages ---- */
/* trace2_region_<verb>_fl(), _printf_va_fl() and _printf_fl(): enter and
 * leave take the same arguments. */
#define TRACE2_OFF_REGION_(verb)                                                            \
	static inline void trace2_region_##verb##_fl(const char *file, int line,             \
						     const char *category, const char *label, \
						     const struct trace2_repository *repo, ...) \
	{                                                                                    \
		(void)file; (void)line; (void)category; (void)label; (void)repo;             \
	}                                                                                    \
	static inline void trace2_region_##verb##_printf_va_fl(                              \
		const char *file, int line, const char *category, const char *label,        \
		const struct trace2_repository *repo, const char *fmt, va_list ap)           \
	{                                                                                    \
		(void)file; (void)line; (void)category; (void)label; (void)repo;             \
		(void)fmt; (void)ap;                                                         \
	}                                                                                    \
	static inline TRACE2_OFF_FORMAT_(6, 7) void trace2_region_##verb##_printf_fl(        \
		const char *file, int line, const char *category, const char *label,        \
		const struct trace2_repository *repo, const char *fmt, ...)                  \
	{                                                                                    \
		(void)file; (void)line; (void)category; (void)label; (void)repo; (void)fmt;  \
	}
TRACE2_OFF_REGION_(enter)
TRACE2_OFF_REGION_(leave)
#undef TRACE2_OFF_REGION_
static inline void trace2_data_string_fl(const char *file, int line, const char *category,
					 const struct trace2_repository *repo,
					 const char *key, const char *value)
{
	(void)file; (void)line; (void)category; (void)repo; (void)key; (void)value;
}
static inline void trace2_data_intmax_fl(const char *file, int line, const char *category,
					 const struct trace2_repository *repo,
					 const char *key, intmax_t value)
{
	(void)file; (void)line; (void)category; (void)repo; (void)key; (void)value;
}
static inline void trace2_data_json_fl(const char *file, int line, const char *category,
				       const struct trace2_repository *repo,
				       const char *key, const struct trace2_json_writer *jw)
{
	(void)file; (void)line; (void)category; (void)repo; (void)key; (void)jw;
}
static inline void trace2_printf_va_fl(const char *file, int line, const char *fmt,
				       va_list ap)
{
	(void)file; (void)line; (void)fmt; (void)ap;
}
static inline TRACE2_OFF_FORMAT_(3, 4) void trace2_printf_fl(const char *file, int line,
							     const char *fmt, ...)
{
	(void)file; (void)line; (void)fmt;
}
/* ---- Timers and counters ---- */
static inline void trace2_timer_start(enum trace2_timer_id tid) { (void)tid; }
static inline void trace2_timer_stop(enum trace2_timer_id tid) { (void)tid; }
static inline void trace2_counter_add(enum trace2_counter_id cid, uint64_t value)
{
	(void)cid; (void)value;
}
static inline enum trace2_timer_id trace2_timer_define(const char *category,
						       const char *name,
						       int per_thread_events)
{
	(void)category; (void)name; (void)per_thread_events;
	return (enum trace2_timer_id)TRACE2_NUMBER_OF_TIMERS;
}
static inline enum trace2_counter_id trace2_counter_define(const char *category,
							   const char *name,
							   int per_thread_events)
{
	(void)category; (void)name; (void)per_thread_events;
	return (enum trace2_counter_id)TRACE2_NUMBER_OF_COUNTERS;
}
/* ---- JSON writer ---- */
static inline void trace2_jw_init(struct trace2_json_writer *jw) { (void)jw; }
static inline void trace2_jw_release(struct trace2_json_writer *jw) { (void)jw; }
static inline void trace2_jw_object_begin(struct trace2_json_writer *jw, int pretty)
{
	(void)jw; (void)pretty;
}
static inline void trace2_jw_array_begin(struct trace2_json_writer *jw, int pretty)
{
	(void)jw; (void)pretty;
}
static inline void trace2_jw_object_string(struct trace2_json_writer *jw, const char *key,
					   const char *value)
{
	(void)jw; (void)key; (void)value;
}
static inline void trace2_jw_object_intmax(struct trace2_json_writer *jw, const char *key,
					   intmax_t value)
{
	(void)jw; (void)key; (void)value;
}
static inline void trace2_jw_object_double(struct trace2_json_writer *jw, const char *key,
					   int precision, double value)
{
	(void)jw; (void)key; (void)precision; (void)value;
}
static inline void trace2_jw_object_true(struct trace2_json_writer *jw, const char *key)
{
	(void)jw; (void)key;
}
static inline void trace2_jw_object_false(struct trace2_json_writer *jw, const char *key)
{
	(void)jw; (void)key;
}
static inline void trace2_jw_object_bool(struct trace2_json_writer *jw, const char *key,
					 int value)
{
	(void)jw; (void)key; (void)value;
}
static inline void trace2_jw_object_null(struct trace2_json_writer *jw, const char *key)
{
	(void)jw; (void)key;
}
static inline void trace2_jw_object_sub_jw(struct trace2_json_writer *jw, const char *key,
					   const struct trace2_json_writer *value)
{
	(void)jw; (void)key; (void)value;
}
static inline void trace2_jw_object_inline_begin_object(struct trace2_json_writer *jw,
							const char *key)
{
	(void)jw; (void)key;
}
static inline void trace2_jw_object_inline_begin_array(struct trace2_json_writer *jw,
						       const char *key)
{
	(void)jw; (void)key;
}
static inline void trace2_jw_array_string(struct trace2_json_writer *jw, const char *value)
{
	(void)jw; (void)value;
}
static inline void trace2_jw_array_intmax(struct trace2_json_writer *jw, intmax_t value)
{
	(void)jw; (void)value;
}
static inline void trace2_jw_array_double(struct trace2_json_writer *jw, int precision,
					  double value)
{
	(void)jw; (void)precision; (void)value;
}
static inline void trace2_jw_array_true(struct trace2_json_writer *jw) { (void)jw; }
static inline void trace2_jw_array_false(struct trace2_json_writer *jw) { (void)jw; }
static inline void trace2_jw_array_bool(struct trace2_json_writer *jw, int value)
{
	(void)jw; (void)value;
}
static inline void trace2_jw_array_null(struct trace2_json_writer *jw) { (void)jw; }
static inline void trace2_jw_array_sub_jw(struct trace2_json_writer *jw,
					  const struct trace2_json_writer *value)
{
	(void)jw; (void)value;
}
static inline void trace2_jw_array_argc_argv(struct trace2_json_writer *jw, int argc,
					     const char **argv)
{
	(void)jw; (void)argc; (void)argv;
}
static inline void trace2_jw_array_argv(struct trace2_json_writer *jw, const char **argv)
{
	(void)jw; (void)argv;
}
static inline void trace2_jw_array_inline_begin_object(struct trace2_json_writer *jw)
{
	(void)jw;
}
static inline void trace2_jw_array_inline_begin_array(struct trace2_json_writer *jw)
{
	(void)jw;
}
static inline int trace2_jw_is_terminated(const struct trace2_json_writer *jw)
{
	(void)jw;
	return 0;
}
static inline void trace2_jw_end(struct trace2_json_writer *jw) { (void)jw; }

#endif /* TRACE2_DISABLE_H */
