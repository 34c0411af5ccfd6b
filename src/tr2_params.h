/* The def_param listings' settings: trace2.configParams, trace2.envVars. */
#ifndef TR2_PARAMS_H
#define TR2_PARAMS_H

/* 1 if key matches a pattern of trace2.configParams. */
int tr2_params_wants_config_key(const char *key);
/* 1 if trace2.configParams is set at all (the config is worth listing). */
int tr2_params_config_wanted(void);
/* Each variable of trace2.envVars that is set and not empty. */
typedef void tr2_params_env_fn(const char *name, const char *value, void *ctx);
void tr2_params_for_each_env_var(tr2_params_env_fn *fn, void *ctx);

/* fn(item, data) for each item of a comma list, trimmed of spaces, TABs,
 * CRs and LFs (empty items included, items of 1 KiB or more left out),
 * until fn returns non-zero; returns that, or 0. */
typedef int tr2_params_item_fn(const char *item, void *data);
int tr2_params_for_each_item(const char *list, tr2_params_item_fn *fn, void *data);

#endif
