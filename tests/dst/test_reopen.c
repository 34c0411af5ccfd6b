/*
 * Long-running hosts: trace2_reopen() (log rotation: a file renamed
 * away and reopened gets the next records, none lost or written twice;
 * plain and buffered mode, from a SIGHUP handler, directory mode, threads
 * writing meanwhile; in a shared directory, never through what another
 * user put under the name), trace2_flush() in buffered mode, and
 * GIT_TRACE2_MAX_FILE_SIZE (one sentinel line, then nothing).
 *
 * The scenarios write numbered trace2_printf() records "n=<i>"; the
 * checks read the numbers back from the files in order.  On Windows
 * (under Wine too) all but the SIGHUP and the shared-directory cases run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifndef _WIN32
#include <grp.h>
#include <pwd.h>
#endif

#include "t2test.h"
#include "trace2.h"

static const char *const logs[] = { "normal.log", "perf.log", "event.log" };
#define NLOGS 3

struct fx {
	char *dir;
	char *path[NLOGS];
	char *old[NLOGS]; /* where a rotation renames them */
	char *env[NLOGS + 3]; /* the logs, two more settings, NULL */
};

static int fx_setup(void **state)
{
	static const char *const names[] = { "GIT_TRACE2", "GIT_TRACE2_PERF",
					     "GIT_TRACE2_EVENT" };
	struct fx *f = calloc(1, sizeof(*f));
	int i;

	f->dir = t2_tmpdir();
	for (i = 0; i < NLOGS; i++) {
		f->path[i] = t2_path(f->dir, logs[i]);
		f->old[i] = t2_xfmt("%s.1", f->path[i]);
		f->env[i] = t2_xfmt("%s=%s", names[i], f->path[i]);
	}
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	int i;

	for (i = 0; i < NLOGS + 2; i++)
		free(f->env[i]);
	for (i = 0; i < NLOGS; i++) {
		free(f->path[i]);
		free(f->old[i]);
	}
	t2_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* The numbers of the "n=<i>" records of text, in order, as "1 2 3";
 * caller frees. */
static char *numbers(const char *text)
{
	char *out = strdup("");
	const char *p = text;

	while (text && (p = strstr(p, "n="))) {
		int n;

		p += 2;
		if (sscanf(p, "%d", &n) == 1)
			t2_append(&out, "%s%d", *out ? " " : "", n);
	}
	return out;
}

static char *numbers_of_file(const char *path)
{
	char *text = t2_read_file(path, NULL);
	char *n = numbers(text);

	free(text);
	return n;
}

static void records(int from, int to)
{
	int i;

	for (i = from; i <= to; i++)
		trace2_printf("n=%d", i);
}

static void rename_all(const struct fx *f)
{
	int i;

	for (i = 0; i < NLOGS; i++)
		CHECK(rename(f->path[i], f->old[i]) == 0);
}

/* Each log's records: the old file holds old_numbers, the new one
 * new_numbers. */
static void expect_split(const struct fx *f, const char *old_numbers,
			 const char *new_numbers)
{
	int i;

	for (i = 0; i < NLOGS; i++) {
		char *o = numbers_of_file(f->old[i]), *n = numbers_of_file(f->path[i]);

		if (strcmp(o, old_numbers) || strcmp(n, new_numbers))
			fail_msg("%s: old file \"%s\", new file \"%s\"; want \"%s\" and \"%s\"",
				 logs[i], o, n, old_numbers, new_numbers);
		free(o);
		free(n);
	}
}

/* ------------------------------------------------------------------ */
/* Rotation.                                                            */

enum how { PLAIN, FLUSH_FIRST, BY_SIGHUP };

struct rotation {
	const struct fx *f;
	enum how how;
};

static void on_sighup(int signo)
{
	(void)signo;
	trace2_reopen();
}

/* 1..5, renamed, 6..7 (still the old file's), reopen, 8..10. */
static void rotate_scenario(void *arg)
{
	const struct rotation *r = arg;

	if (r->how == BY_SIGHUP)
		CHECK(signal(SIGHUP, on_sighup) != SIG_ERR);
	trace2_initialize();
	CHECK(trace2_is_enabled());
	records(1, 5);
	trace2_flush();
	rename_all(r->f);
	records(6, 7);
	if (r->how == FLUSH_FIRST)
		trace2_flush();
	if (r->how == BY_SIGHUP)
		CHECK(raise(SIGHUP) == 0);
	else
		trace2_reopen();
	records(8, 10);
}

static void rotate(struct fx *f, enum how how, const char *buffer)
{
	struct rotation r = { f, how };

	f->env[NLOGS] = buffer ? t2_xfmt("GIT_TRACE2_BUFFER=%s", buffer) : NULL;
	assert_int_equal(t2_run_noinit(rotate_scenario, &r, (const char *const *)f->env), 0);
}

static void test_reopen_plain(void **state)
{
	struct fx *f = *state;

	rotate(f, PLAIN, NULL);
	expect_split(f, "1 2 3 4 5 6 7", "8 9 10");
}

/* The chrome target's file: 1..5, renamed, 6..7, reopen, 8..10. */
static void chrome_scenario(void *arg)
{
	const struct fx *f = arg;
	char *path = t2_path(f->dir, "chrome.json"), *old = t2_xfmt("%s.1", path);

	trace2_initialize();
	CHECK(trace2_is_enabled());
	records(1, 5);
	CHECK(rename(path, old) == 0);
	records(6, 7);
	trace2_reopen();
	records(8, 10);
	free(path);
	free(old);
}

/* Both files are JSON arrays as the target writes them: "[", then one
 * event a line, each ending in ",". */
static void expect_chrome_array(const char *path, const char *want_numbers)
{
	char *text = t2_read_file(path, NULL), *n = numbers(text), *line, *save = NULL;
	int lines = 0;

	assert_non_null(text);
	if (strncmp(text, "[\n{", 3))
		fail_msg("%s does not start with \"[\": %.40s", path, text);
	for (line = strtok_r(text + 2, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);

		lines++;
		if (line[0] != '{' || len < 2 || strcmp(line + len - 2, "},"))
			fail_msg("%s: line %d is not an event: %s", path, lines + 1, line);
	}
	if (strcmp(n, want_numbers))
		fail_msg("%s: records \"%s\", want \"%s\"", path, n, want_numbers);
	free(n);
	free(text);
}

static void test_reopen_chrome_head(void **state)
{
	struct fx *f = *state;
	char *path = t2_path(f->dir, "chrome.json"), *old = t2_xfmt("%s.1", path);
	char *env = t2_xfmt("GIT_TRACE2_CHROME=%s", path);
	const char *const envs[] = { env, NULL };

	assert_int_equal(t2_run_noinit(chrome_scenario, f, envs), 0);
	expect_chrome_array(old, "1 2 3 4 5 6 7");
	expect_chrome_array(path, "8 9 10");
	free(env);
	free(old);
	free(path);
}

static void test_reopen_from_sighup_handler(void **state)
{
	struct fx *f = *state;

	T2_SKIP_ON_WINDOWS("no SIGHUP on Windows");
	rotate(f, BY_SIGHUP, NULL);
	expect_split(f, "1 2 3 4 5 6 7", "8 9 10");
}

/* Buffered records made before the reopen go to the new file... */
static void test_reopen_buffered(void **state)
{
	struct fx *f = *state;

	rotate(f, PLAIN, "64k");
	expect_split(f, "1 2 3 4 5", "6 7 8 9 10");
}

/* ...unless trace2_flush() wrote them first. */
static void test_reopen_buffered_after_flush(void **state)
{
	struct fx *f = *state;

	rotate(f, FLUSH_FIRST, "64k");
	expect_split(f, "1 2 3 4 5 6 7", "8 9 10");
}

/* Directory mode: the process's own file is made again under its name. */
static void dir_scenario(void *arg)
{
	const char *dir = arg;
	char *sid = strdup(trace2_session_id()), *last = strrchr(sid, '/');
	char *own = t2_path(dir, last ? last + 1 : sid), *old = t2_xfmt("%s.rotated", dir);

	records(1, 3);
	CHECK(rename(own, old) == 0);
	trace2_reopen();
	records(4, 5);
	free(sid);
	free(own);
	free(old);
}

static void test_reopen_directory_mode(void **state)
{
	struct fx *f = *state;
	char *dir = t2_path(f->dir, "traces"), *env_ev = t2_xfmt("GIT_TRACE2_EVENT=%s", dir);
	char *old = t2_xfmt("%s.rotated", dir), *names, *own, *n;
	const char *env[] = { env_ev, NULL };

	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(t2_run(dir_scenario, dir, env), 0);
	n = numbers_of_file(old);
	assert_string_equal(n, "1 2 3");
	free(n);
	names = t2_listdir(dir);
	assert_null(strchr(names, ' ')); /* one file, the same name */
	own = t2_path(dir, names);
	n = numbers_of_file(own);
	assert_string_equal(n, "4 5");
	free(n);
	free(own);
	free(names);
	free(old);
	free(env_ev);
	free(dir);
}

#ifdef _WIN32
/* Windows: the case below plays another local user and plants symbolic
 * links, neither of which a test can do there. */
static void reopen_does_not_follow_planted_symlink(void **state)
{
	(void)state;
	T2_SKIP_ON_WINDOWS("another local user's symbolic links in a shared directory "
			   "(a test switches to no other user, and links need a privilege)");
}
#define PLANTED_SYMLINK_TEST cmocka_unit_test(reopen_does_not_follow_planted_symlink)
#else
/*
 * Directory mode in a directory another local user can write (mode 0777
 * without the sticky bit, so fs.protected_symlinks does not step in):
 * after a rotation moved the process's files away, that user puts
 * symlinks under their names, to a file the traced user can write and to
 * a name nobody created.  The reopen must write to neither.  Played as
 * root with a throwaway user; the directory is under /tmp (0755 parents),
 * not under the build tree, which may be closed to that user.
 */
struct shared_dir {
	char *top;    /* mkdtemp() under /tmp, mode 0755 */
	char *dir;    /* <top>/shared, mode 0777 */
	char *victim; /* <top>/victim: an existing file of the traced user */
	char *fresh;  /* <top>/fresh: never created */
	char user[32];
	uid_t uid;
	gid_t gid;
	int have_user;
};

#define PRECIOUS "precious\n"

/* useradd of a throwaway system user (another test may hold the lock of
 * /etc/passwd for a moment: tried a few times); 0 on success. */
static int add_user(struct shared_dir *sd)
{
	struct passwd *pw;
	int tries;

	snprintf(sd->user, sizeof(sd->user), "t2plant%d", (int)getpid());
	for (tries = 0; tries < 10; tries++) {
		if (!t2_system_env(NULL, "useradd -M -N -r -s /bin/false %s >/dev/null 2>&1",
				   sd->user))
			break;
		usleep(200000);
	}
	pw = getpwnam(sd->user);
	if (!pw)
		return -1;
	sd->uid = pw->pw_uid;
	sd->gid = pw->pw_gid;
	sd->have_user = 1;
	return 0;
}

static int shared_dir_teardown(void **state)
{
	struct shared_dir *sd = *state;

	if (!sd)
		return 0;
	if (sd->have_user)
		t2_system_env(NULL, "userdel %s >/dev/null 2>&1", sd->user);
	if (sd->top)
		t2_rmtree(sd->top);
	free(sd->top);
	free(sd->dir);
	free(sd->victim);
	free(sd->fresh);
	free(sd);
	return 0;
}

static int shared_dir_setup(void **state)
{
	struct shared_dir *sd = calloc(1, sizeof(*sd));
	char tmpl[] = "/tmp/t2shared.XXXXXX";

	*state = sd;
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755))
		return -1;
	sd->top = strdup(tmpl);
	sd->dir = t2_path(tmpl, "shared");
	sd->victim = t2_path(tmpl, "victim");
	sd->fresh = t2_path(tmpl, "fresh");
	if (mkdir(sd->dir, 0777) || chmod(sd->dir, 0777) ||
	    t2_write_file(sd->victim, PRECIOUS))
		return -1;
	return 0;
}

/* As the other user: name -> victim, name.1 -> fresh. */
static void plant_links(const struct shared_dir *sd, const char *name)
{
	char *one = t2_xfmt("%s.1", name);
	struct stat st;
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(sd->gid) || setuid(sd->uid) ||
		    symlink(sd->victim, name) || symlink(sd->fresh, one))
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK(!lstat(name, &st) && S_ISLNK(st.st_mode) && st.st_uid == sd->uid);
	free(one);
}

/* NORMAL wrote <sid>, EVENT <sid>.1: 1..3, both moved away, the links
 * planted, reopen, 4..5 into new files of the process's own. */
static void sc_planted_after_rotation(void *arg)
{
	const struct shared_dir *sd = arg;
	char *sid = strdup(trace2_session_id()), *last = strrchr(sid, '/');
	char *base = t2_path(sd->dir, last ? last + 1 : sid), *name, *n;
	int i;

	records(1, 3);
	for (i = 0; i < 2; i++) {
		char *from = i ? t2_xfmt("%s.1", base) : strdup(base);
		char *to = t2_xfmt("%s/rotated.%d", sd->top, i);

		CHECK(rename(from, to) == 0);
		free(from);
		free(to);
	}
	plant_links(sd, base);
	trace2_reopen();
	records(4, 5);
	for (i = 2; i < 4; i++) {
		name = t2_xfmt("%s.%d", base, i);
		n = numbers_of_file(name);
		if (strcmp(n, "4 5"))
			fprintf(stderr, "%s: records \"%s\", want \"4 5\"\n", name, n);
		CHECK(!strcmp(n, "4 5"));
		free(n);
		free(name);
	}
	free(base);
	free(sid);
}

static void reopen_does_not_follow_planted_symlink(void **state)
{
	struct shared_dir *sd = *state;
	char *normal = t2_xfmt("GIT_TRACE2=%s", sd->dir), *event = t2_xfmt("GIT_TRACE2_EVENT=%s", sd->dir);
	const char *env[] = { normal, event, NULL };
	char *text;
	struct stat st;
	int status;

	if (geteuid()) {
		print_message("skipped: playing a second local user needs root\n");
		skip();
	}
	if (t2_system_env(NULL, "command -v useradd >/dev/null 2>&1")) {
		print_message("skipped: no useradd to make a second local user\n");
		skip();
	}
	assert_int_equal(add_user(sd), 0);
	status = t2_run(sc_planted_after_rotation, sd, env);
	text = t2_read_file(sd->victim, NULL);
	assert_non_null(text);
	assert_string_equal(text, PRECIOUS);
	if (!lstat(sd->fresh, &st))
		fail_msg("the reopen created %s through a planted symlink", sd->fresh);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(status, 0);
	free(text);
	free(normal);
	free(event);
}

#define PLANTED_SYMLINK_TEST                                                   \
	cmocka_unit_test_setup_teardown(reopen_does_not_follow_planted_symlink, \
					shared_dir_setup, shared_dir_teardown)
#endif

/* A stream destination is left alone: stderr keeps every record. */
static void stderr_scenario(void *arg)
{
	(void)arg;
	trace2_initialize();
	records(1, 2);
	trace2_reopen();
	records(3, 4);
}

static void test_reopen_leaves_streams(void **state)
{
	const char *env[] = { "GIT_TRACE2_EVENT=2", NULL };
	struct t2_proc p;
	char *n;

	(void)state;
	t2_capture(stderr_scenario, NULL, env, 20, &p);
	assert_int_equal(p.status, 0);
	n = numbers(p.err);
	assert_string_equal(n, "1 2 3 4");
	free(n);
	t2_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* Rotation while threads write.                                        */

#define WRITERS 4
#define PER_WRITER (UNDER_SANITIZER ? 500 : 3000)
#define ROTATIONS 20

static void *writer(void *arg)
{
	int id = (int)(intptr_t)arg, i;

	trace2_thread_start("writer");
	for (i = 0; i < PER_WRITER; i++)
		trace2_printf("n=%d", id * PER_WRITER + i);
	trace2_thread_exit();
	return NULL;
}

static void threads_scenario(void *arg)
{
	const struct fx *f = arg;
	pthread_t t[WRITERS];
	int i;

	trace2_initialize();
	for (i = 0; i < WRITERS; i++)
		CHECK(!pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i));
	for (i = 0; i < ROTATIONS; i++) {
		char *to = t2_xfmt("%s.%d", f->path[2], i);

		CHECK(rename(f->path[2], to) == 0);
		trace2_reopen();
		free(to);
		usleep(1000);
	}
	for (i = 0; i < WRITERS; i++)
		CHECK(!pthread_join(t[i], NULL));
}

/* Every record once, whole, in one of the files. */
static void check_threads_output(const struct fx *f)
{
	unsigned char *seen = calloc(WRITERS * PER_WRITER, 1);
	char *all = strdup(""), *names, *n;
	int i, total = 0;

	for (i = 0; i <= ROTATIONS; i++) {
		char *path = i < ROTATIONS ? t2_xfmt("%s.%d", f->path[2], i) : strdup(f->path[2]);
		char *text = t2_read_file(path, NULL);

		assert_non_null(text);
		t2_append(&all, "%s", text);
		free(text);
		free(path);
	}
	names = t2_event_names(all);
	assert_null(strstr(names, "INVALID"));
	free(names);
	n = numbers(all);
	for (char *p = n; *p;) {
		int k = atoi(p);

		assert_true(k >= 0 && k < WRITERS * PER_WRITER);
		if (seen[k]++)
			fail_msg("record n=%d written twice", k);
		total++;
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	assert_int_equal(total, WRITERS * PER_WRITER);
	free(n);
	free(all);
	free(seen);
}

static void test_reopen_while_threads_write(void **state)
{
	struct fx *f = *state;
	const char *env[] = { f->env[2], NULL };

	assert_int_equal(t2_run_noinit(threads_scenario, f, env), 0);
	check_threads_output(f);
}

static void test_reopen_while_threads_write_buffered(void **state)
{
	struct fx *f = *state;
	const char *env[] = { f->env[2], "GIT_TRACE2_BUFFER=4k", NULL };

	assert_int_equal(t2_run_noinit(threads_scenario, f, env), 0);
	check_threads_output(f);
}

/* ------------------------------------------------------------------ */
/* trace2_flush().                                                      */

static long size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static void flush_scenario(void *arg)
{
	const struct fx *f = arg;
	char *text, *n;

	trace2_flush(); /* while off: nothing */
	trace2_initialize();
	records(1, 3);
	CHECK(size_of(f->path[2]) == 0);
	trace2_flush();
	text = t2_read_file(f->path[2], NULL);
	CHECK(text);
	n = numbers(text);
	CHECK(!strcmp(n, "1 2 3"));
	CHECK(strstr(text, "\"event\":\"version\""));
	free(n);
	free(text);
	records(4, 4);
	CHECK(size_of(f->path[2]) > 0);
	printf("flushed=%ld\n", size_of(f->path[2]));
}

static void test_flush_buffered(void **state)
{
	struct fx *f = *state;
	const char *env[] = { f->env[2], "GIT_TRACE2_BUFFER=64k", NULL };
	struct t2_proc p;
	char *n, *names, *text;

	t2_capture(flush_scenario, f, env, 20, &p);
	if (p.status)
		fail_msg("scenario: %s", p.err);
	t2_proc_free(&p);
	text = t2_read_file(f->path[2], NULL);
	n = numbers(text);
	assert_string_equal(n, "1 2 3 4");
	names = t2_event_names(text);
	assert_string_equal(names, "version printf printf printf printf atexit");
	free(names);
	free(n);
	free(text);
}

/* ------------------------------------------------------------------ */
/* GIT_TRACE2_MAX_FILE_SIZE.                                            */

#define MAX_SIZE 2048

static void many_records(void *arg)
{
	(void)arg;
	records(1, 100);
}

/* The file: whole lines within MAX_SIZE (plus the size it had), the
 * next record would not have fit, then sentinel as its last line. */
static void expect_capped(const char *path, long had, const char *sentinel_re)
{
	size_t len, count, i;
	char *text = t2_read_file(path, &len), **lines;
	long body = 0;

	assert_non_null(text);
	lines = t2_lines(text, &count);
	assert_true(count >= 2);
	if (!t2_matches(lines[count - 1], sentinel_re))
		fail_msg("last line \"%s\" is not the sentinel", lines[count - 1]);
	for (i = 0; i + 1 < count; i++) {
		assert_false(t2_matches(lines[i], "max_file_size"));
		body += (long)strlen(lines[i]) + 1;
	}
	assert_true(body <= MAX_SIZE + had);
	/* a record like the last one would have passed the size */
	assert_true(body + (long)strlen(lines[count - 2]) + 2 > MAX_SIZE + had);
	assert_int_equal(text[len - 1], '\n');
	t2_strv_free(lines);
	free(text);
}

#define JSON_SENTINEL \
	"^\\{\"event\":\"max_file_size\",\"sid\":\"[^\"]+\",\"thread\":\"main\"," \
	"\"time\":\"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{15}Z\",\"max_file_size\":2048\\}$"
#define TEXT_SENTINEL "^max_file_size 2048 reached: no more records written to this file$"

static void test_max_file_size(void **state)
{
	struct fx *f = *state;
	const char *validate[] = { "validate", f->path[2], NULL };
	char *names, *text;
	struct t2_proc p;

	f->env[NLOGS] = t2_xfmt("GIT_TRACE2_MAX_FILE_SIZE=%d", MAX_SIZE);
	assert_int_equal(t2_run(many_records, NULL, (const char *const *)f->env), 0);
	expect_capped(f->path[0], 0, TEXT_SENTINEL);
	expect_capped(f->path[1], 0, TEXT_SENTINEL);
	expect_capped(f->path[2], 0, JSON_SENTINEL);
	text = t2_read_file(f->path[2], NULL);
	names = t2_event_names(text);
	/* every line JSON; the sentinel's "event" is max_file_size */
	assert_null(strstr(names, "INVALID"));
	assert_non_null(strstr(names, "printf max_file_size"));
	/* to a validator, a record of an unknown event: a warning, no error */
	t2_trace2(NULL, validate, 60, &p);
	if (p.status)
		fail_msg("trace2 validate: status %d\n%s%s", p.status, p.out, p.err);
	t2_proc_free(&p);
	free(names);
	free(text);
}

/* Buffered: a buffer that would pass the size is not written. */
static void test_max_file_size_buffered(void **state)
{
	struct fx *f = *state;

	f->env[NLOGS] = t2_xfmt("GIT_TRACE2_MAX_FILE_SIZE=%d", MAX_SIZE);
	f->env[NLOGS + 1] = strdup("GIT_TRACE2_BUFFER=300");
	assert_int_equal(t2_run(many_records, NULL, (const char *const *)f->env), 0);
	/* the last buffer that fit ended with a whole record */
	{
		size_t len;
		char *text = t2_read_file(f->path[2], &len), **lines = t2_lines(text, NULL);
		size_t count = 0;

		while (lines[count])
			count++;
		assert_true(t2_matches(lines[count - 1], JSON_SENTINEL));
		assert_true(len - strlen(lines[count - 1]) - 1 <= MAX_SIZE);
		t2_strv_free(lines);
		free(text);
	}
}

/* A file already past the size gets only the sentinel. */
static void test_max_file_size_counts_existing_bytes(void **state)
{
	struct fx *f = *state;
	char *big = malloc(MAX_SIZE + 2), *text, *want;

	memset(big, 'x', MAX_SIZE);
	big[MAX_SIZE] = '\n';
	big[MAX_SIZE + 1] = '\0';
	assert_int_equal(t2_write_file(f->path[1], big), 0);
	f->env[NLOGS] = t2_xfmt("GIT_TRACE2_MAX_FILE_SIZE=%d", MAX_SIZE);
	assert_int_equal(t2_run(many_records, NULL, (const char *const *)f->env), 0);
	text = t2_read_file(f->path[1], NULL);
	want = t2_xfmt("%smax_file_size 2048 reached: no more records written to this file\n",
		       big);
	assert_string_equal(text, want);
	free(want);
	free(text);
	free(big);
}

/* Rotation starts the count again. */
static void capped_rotation(void *arg)
{
	const struct fx *f = arg;

	records(1, 100);
	rename_all(f);
	trace2_reopen();
	records(101, 102);
}

static void test_max_file_size_reset_by_reopen(void **state)
{
	struct fx *f = *state;
	char *n;

	f->env[NLOGS] = t2_xfmt("GIT_TRACE2_MAX_FILE_SIZE=%d", MAX_SIZE);
	assert_int_equal(t2_run(capped_rotation, f, (const char *const *)f->env), 0);
	expect_capped(f->old[1], 0, TEXT_SENTINEL);
	n = numbers_of_file(f->path[1]);
	assert_string_equal(n, "101 102");
	free(n);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_reopen_plain),
		T(test_reopen_chrome_head),
	T(test_reopen_from_sighup_handler),
		T(test_reopen_buffered),
		T(test_reopen_buffered_after_flush),
		T(test_reopen_directory_mode),
		T(test_reopen_leaves_streams),
		PLANTED_SYMLINK_TEST,
		T(test_reopen_while_threads_write),
		T(test_reopen_while_threads_write_buffered),
		T(test_flush_buffered),
		T(test_max_file_size),
		T(test_max_file_size_buffered),
		T(test_max_file_size_counts_existing_bytes),
		T(test_max_file_size_reset_by_reopen),
	};

	t2_leak_check_runner_only();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
