/*
 * Where a POSIX system keeps the config files Git reads: the home
 * directory is $HOME, a user's from the password database, the system
 * file /etc/gitconfig (or the build's TR2_SYSTEM_CONFIG); paths are
 * separated by '/'.
 */
#ifndef _WIN32
#include "tr2_plat.h"
#include "tr2_sys.h"

#include <pwd.h>
#include <string.h>

#ifndef TR2_SYSTEM_CONFIG
#define TR2_SYSTEM_CONFIG "/etc/gitconfig"
#endif

const char *tr2_plat_home(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return tr2_sys.getenv("HOME");
}

int tr2_plat_user_home(const char *user, char *buf, size_t size)
{
	char pwbuf[4096];
	struct passwd pw, *found = NULL;
	size_t len;

	if (getpwnam_r(user, &pw, pwbuf, sizeof(pwbuf), &found) || !found)
		return -1;
	len = strlen(pw.pw_dir);
	if (len >= size)
		return -1;
	memcpy(buf, pw.pw_dir, len + 1);
	return 0;
}

const char *tr2_plat_system_config(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return TR2_SYSTEM_CONFIG;
}

int tr2_plat_is_dir_sep(char c)
{
	return c == '/';
}
#endif
