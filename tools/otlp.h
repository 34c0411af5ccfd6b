/*
 * trace2 convert --to otlp: event-format logs as OpenTelemetry traces,
 * OTLP/JSON, one TracesData object per line (docs/tools.md).
 */
#ifndef T2_OTLP_H
#define T2_OTLP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct t2_reader;

/* Read every path and write the traces to out; 0, or 1 when an input
 * could not be read or out failed. */
int otlp_convert(char **paths, int npaths, FILE *out);

/* The ids (docs/tools.md): FNV-1a 64 and FNV-1a 128 of s[0..len). */
uint64_t otlp_fnv1a64(const void *s, size_t len);
void otlp_fnv1a128(const void *s, size_t len, uint64_t *hi, uint64_t *lo);

#endif
