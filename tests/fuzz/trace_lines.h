/*
 * Checks of what the three targets wrote (non-brief), from the spec
 * (targets.md §2-§4): each function takes the complete new text of one
 * target's file and aborts, naming the line, at the first bad record.
 */
#ifndef T2_TRACE_LINES_H
#define T2_TRACE_LINES_H

#include <stddef.h>

/*
 * NORMAL: every line starts with the local time and a space.  The
 * caller passes no LF in any string, so every record is one line.
 */
void check_normal_text(const char *text, size_t len);

/*
 * PERF: every record is the fixed columns of targets.md §3.1 (time,
 * 28-wide location, depth, 24-wide thread, 12-wide event name, repo,
 * t_abs and t_rel present exactly for the events that have them, 12-wide
 * category), then the payload.  Only a data_json record spans several
 * lines (a pretty writer); if its payload, after the indentation dots,
 * starts with "json:" the rest of the record must parse with tjson (the
 * caller uses that key only for terminated writers).
 */
void check_perf_text(const char *text, size_t len);

/* EVENT: every line is one JSON object with string members event, sid,
 * thread and time. */
void check_event_text(const char *text, size_t len);

#endif
