/* trace2_config_set(): a trace2.* key and its value, checked as the
 * config files' parser reads them, into the settings table. */
#ifndef TR2_SETTINGS_H
#define TR2_SETTINGS_H

/* Set "trace2.<name>" (any case) to value; 0, or EINVAL for an unknown
 * key or a value its parser cannot read, ENOMEM. */
int tr2_settings_set(const char *key, const char *value);

#endif
