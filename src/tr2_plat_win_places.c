/*
 * Where Git for Windows keeps the config files: the home directory from
 * the environment, the installation (and its etc\gitconfig) from the
 * git.exe on PATH; and its paths' separators.  Pure rules over what the caller reads from the
 * system, so that they are tested on every platform
 * (tests/lib/test_win_places.c); src/tr2_plat_win32_config.c uses them.
 */
#include "tr2_plat_win_places.h"

#include <string.h>

#define SYSTEM_CONFIG "\\etc\\gitconfig"
/* The longest PATH entry looked at (Windows' own limit is shorter). */
#define DIR_MAX 1024

/* a then b into buf (size bytes); NULL if they do not fit. */
static const char *join(char *buf, size_t size, const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	if (alen >= size || blen >= size - alen)
		return NULL;
	memcpy(buf, a, alen);
	memcpy(buf + alen, b, blen + 1);
	return buf;
}

static int is_set(const char *value)
{
	return value && *value;
}

const char *tr2_plat_win_home(tr2_plat_getenv_fn *get, char *buf, size_t size)
{
	const char *home = get("HOME"), *drive, *path;

	if (home)
		return home;
	if (is_set(home = get("USERPROFILE")))
		return home;
	drive = get("HOMEDRIVE");
	path = get("HOMEPATH");
	if (!is_set(drive) || !is_set(path))
		return NULL;
	return join(buf, size, drive, strlen(drive), path);
}

int tr2_plat_win_is_dir_sep(char c)
{
	return c == '/' || c == '\\';
}

/* Whether name[0..len) is want, a lower-case ASCII name, in any case. */
static int same_name(const char *name, size_t len, const char *want)
{
	size_t i;

	if (len != strlen(want))
		return 0;
	for (i = 0; i < len; i++)
		if ((name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]) != want[i])
			return 0;
	return 1;
}

/* The length of dir[0..len) without its last component and the
 * separators before it; that component at *name, *name_len. */
static size_t parent(const char *dir, size_t len, const char **name, size_t *name_len)
{
	size_t end = len;

	while (end && !tr2_plat_win_is_dir_sep(dir[end - 1]))
		end--;
	*name = dir + end;
	*name_len = len - end;
	while (end && tr2_plat_win_is_dir_sep(dir[end - 1]))
		end--;
	return end;
}

size_t tr2_plat_win_git_root(const char *dir)
{
	static const char *const arches[] = { "mingw64", "mingw32", "clangarm64" };
	size_t len = strlen(dir), up, upup, name_len, i;
	const char *name;

	while (len && tr2_plat_win_is_dir_sep(dir[len - 1]))
		len--;
	up = parent(dir, len, &name, &name_len);
	if (same_name(name, name_len, "cmd"))
		return up;
	if (!same_name(name, name_len, "bin"))
		return 0;
	upup = parent(dir, up, &name, &name_len);
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (same_name(name, name_len, arches[i]))
			return upup;
	return up;
}

/* PATH's next entry from *p into dir (quotes dropped), *p past it; 0
 * at the end of the list. */
static int next_entry(const char **p, char *dir, size_t size, int *fits)
{
	size_t len = 0;

	if (!**p)
		return 0;
	*fits = 1;
	for (; **p && **p != ';'; (*p)++) {
		if (**p == '"')
			continue;
		if (len + 1 < size)
			dir[len++] = **p;
		else
			*fits = 0;
	}
	if (**p == ';')
		(*p)++;
	dir[len] = '\0';
	return 1;
}

const char *tr2_plat_win_system_config(const char *path_list, tr2_plat_has_git_fn *has_git,
				       void *ctx, char *buf, size_t size)
{
	char dir[DIR_MAX];
	size_t root;
	int fits;

	if (!path_list)
		return NULL;
	while (next_entry(&path_list, dir, sizeof(dir), &fits)) {
		if (!fits || !*dir || !has_git(dir, ctx))
			continue;
		root = tr2_plat_win_git_root(dir);
		return root ? join(buf, size, dir, root, SYSTEM_CONFIG) : NULL;
	}
	return NULL;
}
