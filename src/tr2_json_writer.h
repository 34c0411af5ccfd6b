/* The JSON writer behind Git's jw_*() API (declared in trace2.h). */
#ifndef TR2_JSON_WRITER_H
#define TR2_JSON_WRITER_H

#include "trace2.h"

/* A writer whose allocation failed: its value is never traced. */
int tr2_jw_failed(const struct trace2_json_writer *jw);

#endif
