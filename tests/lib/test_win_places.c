/*
 * Where the library looks for Git for Windows' config files
 * (src/tr2_plat_win_places.c), over a made-up environment and file
 * system, on every platform.  The rules, as docs/configuration.md's
 * "On Windows" says them: the home directory is HOME, else USERPROFILE,
 * else HOMEDRIVE and HOMEPATH; the system file is etc\gitconfig of the
 * installation whose git.exe comes first on PATH, the installation
 * being the directory above cmd, bin or mingw64\bin (mingw32,
 * clangarm64), and none if that git.exe is elsewhere; paths are
 * separated by '/' or '\'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tr2_plat_win_places.h"

/* The made-up environment: NAME=value strings, NULL-terminated. */
static const char *const *env;

static char *fake_getenv(const char *name)
{
	size_t len = strlen(name), i;

	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return (char *)env[i] + len + 1;
	return NULL;
}

static const char *home_of(const char *const *vars, char *buf, size_t size)
{
	env = vars;
	return tr2_plat_win_home(fake_getenv, buf, size);
}

static void home_order(void **state)
{
	static const char *const all[] = {
		"HOME=C:\\h", "USERPROFILE=C:\\Users\\u", "HOMEDRIVE=D:", "HOMEPATH=\\p", NULL
	};
	static const char *const profile[] = {
		"USERPROFILE=C:\\Users\\u", "HOMEDRIVE=D:", "HOMEPATH=\\p", NULL
	};
	static const char *const drive[] = { "HOMEDRIVE=D:", "HOMEPATH=\\p", NULL };
	static const char *const empty_profile[] = {
		"USERPROFILE=", "HOMEDRIVE=D:", "HOMEPATH=\\p", NULL
	};
	static const char *const half[] = { "HOMEDRIVE=D:", NULL };
	static const char *const none[] = { NULL };
	char buf[64];

	(void)state;
	assert_string_equal(home_of(all, buf, sizeof(buf)), "C:\\h");
	assert_string_equal(home_of(profile, buf, sizeof(buf)), "C:\\Users\\u");
	assert_string_equal(home_of(drive, buf, sizeof(buf)), "D:\\p");
	assert_string_equal(home_of(empty_profile, buf, sizeof(buf)), "D:\\p");
	assert_null(home_of(half, buf, sizeof(buf)));
	assert_null(home_of(none, buf, sizeof(buf)));
	/* "D:\p" needs 5 bytes. */
	assert_null(home_of(drive, buf, 4));
	assert_string_equal(home_of(drive, buf, 5), "D:\\p");
}

static void separators(void **state)
{
	(void)state;
	assert_true(tr2_plat_win_is_dir_sep('/'));
	assert_true(tr2_plat_win_is_dir_sep('\\'));
	assert_false(tr2_plat_win_is_dir_sep(':'));
}

static void expect_root(const char *dir, const char *want)
{
	size_t len = tr2_plat_win_git_root(dir);

	if (!want) {
		assert_int_equal(len, 0);
		return;
	}
	assert_int_equal(len, strlen(want));
	assert_memory_equal(dir, want, len);
}

static void roots(void **state)
{
	(void)state;
	expect_root("C:\\Program Files\\Git\\cmd", "C:\\Program Files\\Git");
	expect_root("C:\\Program Files\\Git\\bin", "C:\\Program Files\\Git");
	expect_root("C:\\Program Files\\Git\\mingw64\\bin", "C:\\Program Files\\Git");
	expect_root("C:\\Git32\\mingw32\\bin", "C:\\Git32");
	expect_root("C:\\GitArm\\clangarm64\\bin", "C:\\GitArm");
	expect_root("c:/program files/git/CMD/", "c:/program files/git");
	expect_root("C:\\Git\\MINGW64\\Bin\\\\", "C:\\Git");
	expect_root("C:\\cmd", "C:");
	expect_root("C:\\Git\\usr\\bin", "C:\\Git\\usr");
	expect_root("C:\\tools\\git", NULL);
	expect_root("C:\\Git\\cmdx", NULL);
	expect_root("C:\\Git\\xbin", NULL);
	expect_root("cmd", NULL);
	expect_root("", NULL);
}

/* The made-up file system: the directories that hold git.exe, and the
 * directories asked about, in order. */
struct fs {
	const char *const *with_git;
	char asked[256];
};

static int fake_has_git(const char *dir, void *ctx)
{
	struct fs *fs = ctx;
	size_t i;

	strcat(fs->asked, dir);
	strcat(fs->asked, "|");
	for (i = 0; fs->with_git[i]; i++)
		if (!strcmp(fs->with_git[i], dir))
			return 1;
	return 0;
}

static void expect_system(const char *path, const char *const *with_git, const char *want,
			  const char *asked)
{
	struct fs fs = { with_git, "" };
	char buf[128];
	const char *got = tr2_plat_win_system_config(path, fake_has_git, &fs, buf, sizeof(buf));

	if (want)
		assert_string_equal(got, want);
	else
		assert_null(got);
	assert_string_equal(fs.asked, asked);
}

static void system_file_from_path(void **state)
{
	static const char *const gfw[] = { "C:\\Program Files\\Git\\cmd", "C:\\Git2\\bin", NULL };
	static const char *const shim[] = { "C:\\shims", "C:\\Program Files\\Git\\cmd", NULL };
	static const char *const nothing[] = { NULL };

	(void)state;
	expect_system("C:\\Windows;C:\\Program Files\\Git\\cmd;C:\\Git2\\bin", gfw,
		      "C:\\Program Files\\Git\\etc\\gitconfig",
		      "C:\\Windows|C:\\Program Files\\Git\\cmd|");
	/* Empty entries skipped, quotes dropped. */
	expect_system(";;\"C:\\Program Files\\Git\\cmd\";", gfw,
		      "C:\\Program Files\\Git\\etc\\gitconfig", "C:\\Program Files\\Git\\cmd|");
	/* The first git.exe decides, even when it is not an installation's. */
	expect_system("C:\\shims;C:\\Program Files\\Git\\cmd", shim, NULL, "C:\\shims|");
	expect_system("C:\\a;C:\\b", nothing, NULL, "C:\\a|C:\\b|");
	expect_system("", nothing, NULL, "");
	expect_system(NULL, nothing, NULL, "");
}

static void system_file_too_long(void **state)
{
	static const char *const gfw[] = { "C:\\Program Files\\Git\\cmd", NULL };
	struct fs fs = { gfw, "" };
	/* "C:\Program Files\Git\etc\gitconfig": 34 bytes and the NUL. */
	char buf[35];

	(void)state;
	assert_null(tr2_plat_win_system_config("C:\\Program Files\\Git\\cmd", fake_has_git, &fs,
					       buf, 34));
	assert_string_equal(tr2_plat_win_system_config("C:\\Program Files\\Git\\cmd", fake_has_git,
						       &fs, buf, 35),
			    "C:\\Program Files\\Git\\etc\\gitconfig");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(home_order),
		cmocka_unit_test(separators),
		cmocka_unit_test(roots),
		cmocka_unit_test(system_file_from_path),
		cmocka_unit_test(system_file_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
