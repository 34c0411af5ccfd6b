/*
 * trace2 convert --to otlp: event-format logs as OpenTelemetry traces,
 * OTLP/JSON, one TracesData object per line, written as the input is
 * read (docs/tools.md).
 */
#ifndef T2_OTLP_H
#define T2_OTLP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct otlp;
struct t2_record;

/* Read every path and write the traces to out; 0, or 1 when an input
 * could not be read or out failed. */
int otlp_convert(char **paths, int npaths, FILE *out);

/* The same on records from a reader of one's own: otlp_record() for
 * every record (a t2_record_fn, ctx the struct otlp; it writes the spans
 * that can be), then otlp_finish() before t2_reader_free() (it writes
 * the rest and frees o; it uses the processes' and threads' user
 * pointers meanwhile). */
struct otlp *otlp_new(FILE *out);
void otlp_record(void *ctx, struct t2_record *rec);
int otlp_finish(struct otlp *o);

/* The ids (docs/tools.md): FNV-1a 64 and FNV-1a 128 of s[0..len). */
uint64_t otlp_fnv1a64(const void *s, size_t len);
void otlp_fnv1a128(const void *s, size_t len, uint64_t *hi, uint64_t *lo);

#endif
