/* URL password redaction (GIT_TRACE2_REDACT). */
#ifndef TR2_REDACT_H
#define TR2_REDACT_H

/* Read GIT_TRACE2_REDACT (an invalid value is fatal, as in Git). */
void tr2_redact_init(void);
/*
 * *out = a redacted copy of s, or NULL when s has nothing to hide.
 * -1 when memory ran out: the caller must then not trace s at all
 * (redaction fails closed).
 */
int tr2_redact_url(const char *s, char **out);
/* The same for argv; free the copy with tr2_redact_free_argv(copy, argv). */
int tr2_redact_argv(const char **argv, const char ***out);
void tr2_redact_free_argv(const char **copy, const char **argv);

#endif
