/*
 * trace2 convert --to chrome's output: every trace event of the inputs
 * (from the chrome target, or read from Chrome files) kept, then written
 * as one strict JSON object {"traceEvents":[...]}: B/E pairs made X
 * slices, metadata first, then sorted by ts, each process with a pid of
 * its own.
 */
#ifndef T2_CHROME_OUT_H
#define T2_CHROME_OUT_H

#include <stddef.h>
#include <stdint.h>

/* A new process of the output with this real pid: its number. */
unsigned chrome_out_process(uint32_t pid);

/*
 * Keep one trace event, the JSON object text[0..len), of process proc
 * (a number chrome_out_process() gave), or, when proc is
 * CHROME_OUT_BY_PID, of the process its "pid" names (the same pid, the
 * same process).  Returns NULL, or why the event was not kept.
 */
#define CHROME_OUT_BY_PID ((unsigned)-1)
const char *chrome_out_event(unsigned proc, const char *text, size_t len);

/*
 * A line of a Chrome file (the array form, live, cut or whole, or the
 * object form this command writes) without its LF: its event kept as
 * chrome_out_event() does, or NULL for a line with none ("[", "]}"...),
 * or why it was not kept.
 */
const char *chrome_out_line(unsigned proc, const char *line, size_t len);

/* Whether a file whose first line (not blank) is this is a Chrome file. */
int chrome_out_is_chrome(const char *line, size_t len);

/* Write everything kept with put(), then forget it; put's first failure
 * is returned. */
int chrome_out_write(int (*put)(const char *p, size_t n));

/* Forget everything kept. */
void chrome_out_reset(void);

#endif
