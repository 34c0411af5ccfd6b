/*
 * The recording reader: the record target's binary files
 * (docs/record-format.md) decoded, block by block as their bytes come,
 * into the same records (struct t2_record) the event-format reader makes
 * of lines, handed to the reader's callback.  Memory grows with the
 * longest block (at most the reader's line limit) and the processes'
 * string and thread tables, not with the input.
 */
#ifndef T2_RECORD_H
#define T2_RECORD_H

#include <stddef.h>

struct t2_reader;
struct t2_source;
struct t2_recording;

/* Whether an input whose first n bytes are data is a recording (it
 * starts with the magic's first min(n, 8) bytes). */
int t2_is_recording(const char *data, size_t n);

/* A recording's reader, for the input s of r. */
struct t2_recording *t2_recording_begin(struct t2_reader *r, struct t2_source *s);
/* The next n bytes of the input. */
void t2_recording_feed(struct t2_recording *rc, const char *data, size_t n);
/* The input's end: of a block cut short, its whole records are read and
 * the cut reported; rc is freed. */
void t2_recording_end(struct t2_recording *rc);

#endif
