/*
 * W3C Trace Context's traceparent, as the library records it from its
 * environment and the trace2 command's OTLP converter joins it
 * (docs/tools.md, "Joining a caller's trace: `traceparent`").
 */
#ifndef TR2_TRACEPARENT_H
#define TR2_TRACEPARENT_H

/*
 * Whether s (NULL: no) is a valid traceparent:
 * "<version>-<trace id>-<parent id>-<flags>", 2, 32, 16 and 2 lowercase
 * hex digits, the ids not all zero; version ff is invalid, and only a
 * version after 00 may add fields ("-...") after the flags.
 */
int tr2_traceparent_valid(const char *s);

#endif
