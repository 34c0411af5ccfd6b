/*
 * A program with its own struct strbuf, struct repository and
 * jw_object_begin() (Git's names) that uses trace2.h with
 * TRACE2_NO_GIT_NAMES (tests/lib/test_names.sh builds it with -Wall -Wextra
 * -Werror, linked statically and dynamically, and checks its log).
 */
#define TRACE2_NO_GIT_NAMES
#include "trace2.h"

#include <stdio.h>
#include <string.h>

#if defined(STRVEC_INIT) || defined(CHILD_PROCESS_INIT) || defined(KVI_INIT) || \
	defined(JSON_WRITER_INIT) || defined(CONFIG_SCOPE_SYSTEM) || \
	defined(CONFIG_ORIGIN_FILE) || defined(jw_end) || defined(jw_object_begin) || \
	defined(trace2_strbuf) || defined(trace2_repository)
#error "TRACE2_NO_GIT_NAMES left a Git name (or a tag macro) defined"
#endif

/* The host's own types and function under Git's names. */
struct strbuf {
	int host_len;
	char host_text[32];
};

struct repository {
	const char *host_url;
};

struct json_writer {
	int depth;
};

int jw_object_begin(struct json_writer *jw, const char *why);
int jw_object_begin(struct json_writer *jw, const char *why)
{
	jw->depth++;
	return (int)strlen(why);
}

enum config_scope { MY_SCOPE_A, MY_SCOPE_B };

int main(int argc, char **argv)
{
	struct strbuf mine = { 4, "mine" };
	struct repository host_repo = { "https://example.org/r" };
	struct json_writer own_jw = { 0 };
	struct trace2_repository repo = { NULL, 0 };
	struct trace2_json_writer jw = TRACE2_JSON_WRITER_INIT;
	struct trace2_key_value_info kvi = TRACE2_KVI_INIT;
	struct trace2_child_process cp = TRACE2_CHILD_PROCESS_INIT;
	enum config_scope scope = MY_SCOPE_B;

	(void)argc;
	trace2_initialize();
	trace2_cmd_start((const char **)argv);
	repo.worktree = (char *)"/w";
	trace2_def_repo(&repo);
	kvi.scope = TRACE2_CONFIG_SCOPE_GLOBAL;
	trace2_def_param("own.names", "yes", &kvi);
	trace2_jw_object_begin(&jw, 0);
	trace2_jw_object_intmax(&jw, "own", jw_object_begin(&own_jw, mine.host_text));
	trace2_jw_object_string(&jw, "url", host_repo.host_url);
	trace2_jw_end(&jw);
	trace2_data_json("names", &repo, "result", &jw);
	trace2_jw_release(&jw);
	trace2_data_intmax("names", NULL, "scope", (intmax_t)scope + own_jw.depth);
	(void)cp;
	printf("%d %s\n", mine.host_len, mine.host_text);
	return trace2_cmd_exit(0);
}
