/*
 * Where Git for Windows keeps the config files (the rules:
 * tr2_plat_win_places.c): the home directory from the environment, no
 * "~user", the system file beside the git.exe found on PATH; paths as
 * Windows has them.
 */
#ifdef _WIN32
#include "tr2_plat.h"
#include "tr2_plat_win_places.h"
#include "tr2_sys.h"

#include <string.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* A directory's name and "\git.exe", in UTF-16. */
#define GIT_EXE_PATH_MAX 1100

static int has_git(const char *dir, void *ctx)
{
	static const wchar_t git_exe[] = L"\\git.exe";
	wchar_t path[GIT_EXE_PATH_MAX];
	DWORD attrs;
	int len;

	(void)ctx;
	len = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, dir, -1, path,
				  GIT_EXE_PATH_MAX - (int)(sizeof(git_exe) / sizeof(wchar_t)));
	if (len <= 0)
		return 0;
	memcpy(path + len - 1, git_exe, sizeof(git_exe));
	attrs = GetFileAttributesW(path);
	return attrs != INVALID_FILE_ATTRIBUTES && !(attrs & FILE_ATTRIBUTE_DIRECTORY);
}

const char *tr2_plat_home(char *buf, size_t size)
{
	return tr2_plat_win_home(tr2_sys.getenv, buf, size);
}

int tr2_plat_user_home(const char *user, char *buf, size_t size)
{
	(void)user;
	(void)buf;
	(void)size;
	return -1;
}

const char *tr2_plat_system_config(char *buf, size_t size)
{
	return tr2_plat_win_system_config(tr2_sys.getenv("PATH"), has_git, NULL, buf, size);
}

int tr2_plat_is_dir_sep(char c)
{
	return tr2_plat_win_is_dir_sep(c);
}
#endif
