/* gitconfig files: the trace2.* settings and trace2_cmd_list_config(). */
#ifndef TR2_CONFIG_H
#define TR2_CONFIG_H

#include "trace2.h"

typedef trace2_config_entry_fn tr2_config_fn;

/* Read exactly these files (NULL: none) instead of Git's system and
 * global files, from now on (trace2_set_config_files()). */
void tr2_config_set_files(const char *system_path, const char *global_path);
/* Read the system and global files and keep their trace2.* settings
 * (the last assignment of each wins).  Reports malformed files. */
void tr2_config_load_settings(void);
/*
 * Every entry of the configuration Git would list, in Git's order: the
 * system and global files, what the host's hook adds, then the command
 * line (GIT_CONFIG_COUNT family, GIT_CONFIG_PARAMETERS).  Keys are
 * normalised as Git does ("cfg.Prop.bar"); value NULL for a valueless
 * entry.
 */
void tr2_config_for_each(tr2_config_fn *fn, void *ctx);

#endif
