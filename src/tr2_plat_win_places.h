/* Where Git for Windows keeps its user's and system's config (tr2_plat_win_places.c). */
#ifndef TR2_PLAT_WIN_PLACES_H
#define TR2_PLAT_WIN_PLACES_H

#include <stddef.h>

/* Reads an environment variable (NULL: unset). */
typedef char *tr2_plat_getenv_fn(const char *name);
/* Whether directory dir holds git.exe. */
typedef int tr2_plat_has_git_fn(const char *dir, void *ctx);

/* The home directory: HOME if set, else USERPROFILE, else HOMEDRIVE
 * followed by HOMEPATH (put in buf, of size bytes); NULL if none. */
const char *tr2_plat_win_home(tr2_plat_getenv_fn *get, char *buf, size_t size);

/*
 * The length of the installation root in dir, a directory that holds a
 * Git for Windows' git.exe (<root>\cmd, <root>\bin or <root>\<arch>\bin
 * as mingw64, mingw32 or clangarm64; either separator, any case, trailing
 * separators allowed); 0 if dir is none of those.
 */
size_t tr2_plat_win_git_root(const char *dir);

/*
 * The system config file of the Git for Windows whose git.exe is found
 * first in path_list (PATH: ';'-separated, quotes ignored), has_git
 * asking each directory: "<root>\etc\gitconfig" in buf (size bytes).
 * NULL if no directory holds git.exe, the first that does is not an
 * installation's, or the name does not fit.
 */
const char *tr2_plat_win_system_config(const char *path_list, tr2_plat_has_git_fn *has_git,
				       void *ctx, char *buf, size_t size);

/* Whether c separates directories: '/' or '\\'. */
int tr2_plat_win_is_dir_sep(char c);

#endif
