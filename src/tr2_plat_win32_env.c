/*
 * The environment on Windows, in UTF-8 (tr2_plat.h).  The C runtime's
 * getenv() answers in the ANSI code page, which writes '?' or a look-alike
 * letter for what it cannot hold (a home directory "C:\Users\Łukasz"),
 * so the values are read from the process's UTF-16 environment instead.
 */
#ifdef _WIN32
#include "tr2_plat.h"
#include "tr2_sys.h"

#include <stdlib.h>
#include <string.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/*
 * A value handed out: "name\0value\0".  Callers hold what getenv() gives
 * them, so copies are kept for the process's life; a value read again
 * is the copy made the first time, so only a value that changes makes
 * another.
 */
struct env_copy {
	struct env_copy *next;
	size_t name_len;
	char text[];
};

static struct env_copy *env_copies;
static SRWLOCK env_lock = SRWLOCK_INIT;

/* s in UTF-16, from tr2_sys.malloc; NULL for invalid UTF-8 or without
 * memory. */
static wchar_t *wide_copy(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? tr2_sys.malloc((size_t)n * sizeof(wchar_t)) : NULL;

	if (w && !MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n)) {
		tr2_sys.free(w);
		w = NULL;
	}
	return w;
}

/* Whether the call that gave 0 did so for a variable that is not set
 * (a variable set empty also gives 0 characters). */
static int not_set(DWORD n)
{
	return !n && GetLastError() == ERROR_ENVVAR_NOT_FOUND;
}

/* The variable's UTF-16 value, from tr2_sys.malloc; NULL if it is not
 * set (or changed size while read, or without memory). */
static wchar_t *wide_value(const wchar_t *name)
{
	DWORD n, got;
	wchar_t *v;

	SetLastError(0);
	n = GetEnvironmentVariableW(name, NULL, 0);
	if (not_set(n))
		return NULL;
	n += !n;
	if (!(v = tr2_sys.malloc(n * sizeof(wchar_t))))
		return NULL;
	v[0] = 0;
	SetLastError(0);
	got = GetEnvironmentVariableW(name, v, n);
	if (not_set(got) || got >= n) {
		tr2_sys.free(v);
		return NULL;
	}
	return v;
}

static struct env_copy *find_copy(const char *name, size_t name_len, const char *value)
{
	struct env_copy *c;

	for (c = env_copies; c; c = c->next)
		if (c->name_len == name_len && !memcmp(c->text, name, name_len + 1) &&
		    !strcmp(c->text + name_len + 1, value))
			return c;
	return NULL;
}

/* The kept copy of name's value, wvalue in UTF-8; NULL without memory. */
static char *kept_value(const char *name, const wchar_t *wvalue)
{
	size_t name_len = strlen(name);
	int n = WideCharToMultiByte(CP_UTF8, 0, wvalue, -1, NULL, 0, NULL, NULL);
	struct env_copy *c = n > 0 ? tr2_sys.malloc(sizeof(*c) + name_len + 1 + (size_t)n) : NULL;
	struct env_copy *kept;

	if (!c)
		return NULL;
	memcpy(c->text, name, name_len + 1);
	WideCharToMultiByte(CP_UTF8, 0, wvalue, -1, c->text + name_len + 1, n, NULL, NULL);
	c->name_len = name_len;
	AcquireSRWLockExclusive(&env_lock);
	kept = find_copy(name, name_len, c->text + name_len + 1);
	if (!kept) {
		c->next = env_copies;
		env_copies = kept = c;
		c = NULL;
	}
	ReleaseSRWLockExclusive(&env_lock);
	tr2_sys.free(c);
	return kept->text + name_len + 1;
}

char *tr2_plat_getenv(const char *name)
{
	wchar_t *wname = wide_copy(name), *wvalue = wname ? wide_value(wname) : NULL;
	char *value = wvalue ? kept_value(name, wvalue) : NULL;

	tr2_sys.free(wvalue);
	tr2_sys.free(wname);
	return value;
}

/* Through the C runtime, which keeps its copies (the host's getenv())
 * and the process's environment, which children get, in step. */
int tr2_plat_setenv(const char *name, const char *value, int overwrite)
{
	wchar_t *wname, *wvalue;
	int rc = -1;

	if (!overwrite && tr2_plat_getenv(name))
		return 0;
	wname = wide_copy(name);
	wvalue = wname ? wide_copy(value) : NULL;
	if (wvalue)
		rc = _wputenv_s(wname, wvalue) ? -1 : 0;
	tr2_sys.free(wvalue);
	tr2_sys.free(wname);
	return rc;
}
#endif
