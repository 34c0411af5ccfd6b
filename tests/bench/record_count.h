/* record_count.h -- count the records of a recording (record_count.c). */
#ifndef RECORD_COUNT_H
#define RECORD_COUNT_H

#include <stdint.h>

struct record_count {
	uint64_t bytes;          /* the file's size */
	uint64_t records;        /* records of its EVENTS blocks */
	uint64_t region_records; /* of them, region_enter and region_leave */
	uint64_t dropped;        /* the counts of its DROPPED blocks */
};

/* Read recording `path` (docs/record-format.md); 0 when it reads to its
 * end, -1 with a message on stderr when it cannot be read or is not a
 * whole, valid recording. */
int record_count_file(const char *path, struct record_count *c);

#endif
