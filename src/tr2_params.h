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

#endif
