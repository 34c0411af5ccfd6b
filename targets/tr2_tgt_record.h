/*
 * The RECORD target (GIT_TRACE2_RECORD): every event in the compact
 * binary form of docs/record-format.md.  A traced thread encodes its
 * records into a ring of its own (no lock, no system call, no
 * formatting); a writer thread turns what the rings hold into blocks and
 * writes them.  ctx: a struct tr2_tgt_record.
 */
#ifndef TR2_TGT_RECORD_H
#define TR2_TGT_RECORD_H

#include "tr2_plat.h"
#include <stdint.h>

#include "tr2_tgt.h"

/* A thread's ring (GIT_TRACE2_RECORD_RING): bytes, a power of two. */
#define TR2_RECORD_RING_DEFAULT ((size_t)4 << 20)
#define TR2_RECORD_RING_MIN ((size_t)16 << 10)
#define TR2_RECORD_RING_MAX ((size_t)64 << 20)
/* The longest record kept in a ring; a longer one (a huge message) is
 * encoded on the heap and the ring holds a pointer to it. */
#define TR2_RECORD_INLINE_MAX 4096
/* The payload bytes the writer puts into one EVENTS block at most. */
#define TR2_RECORD_BLOCK_MAX ((size_t)64 << 10)
/* The string table: entries and bytes at most, and the longest string
 * entered (others are written in place); the site table's limits too. */
#define TR2_RECORD_STRINGS_MAX 65536
#define TR2_RECORD_STRING_BYTES_MAX ((size_t)16 << 20)
#define TR2_RECORD_STRING_LEN_MAX 1024
/* Table entries are allocated this many at a time. */
#define TR2_RECORD_PAGE 1024
/* Each thread's cache of the strings it used last (a power of two). */
#define TR2_RECORD_CACHE 64
/* Each thread's cache of the region call sites it used last (a power of
 * two). */
#define TR2_RECORD_SITES 64

struct tr2_rec_stream;
struct tr2_rec_string;

/* Byte strings numbered in the order they were entered, from first, in
 * pages that never move; count is atomic, the rest under the lock. */
struct tr2_rec_table {
	struct tr2_rec_string *pages[TR2_RECORD_STRINGS_MAX / TR2_RECORD_PAGE];
	uint32_t first;
	uint32_t count;
	size_t bytes;
	uint32_t *index;       /* open addressing: entry number + 1, 0 free */
	size_t index_size;
};

struct tr2_tgt_record {
	struct tr2_tgt_state base;
	int deferred;          /* records come from deferred mode's writer */
	int wait_when_full;    /* trace2.ringFull=wait */
	size_t ring_size;
	unsigned gen;          /* the open() the streams belong to */
	uint64_t process_key;  /* the blocks' process field */
	long pid;
	struct tr2_rec_stream *streams;       /* atomic head; never shrinks */

	/* The string table (numbered from 2) and the site table (from 0:
	 * each entry the bytes of a SITES entry), under strings_lock. */
	tr2_mutex strings_lock;
	struct tr2_rec_table strings, sites;

	/* The writer: the thread, or whoever drains under drain_lock (a
	 * word, 1 while held: a fatal signal's handler takes it too). */
	int drain_lock;
	int in_signal;         /* the drain is a signal handler's */
	tr2_thread writer;
	int writer_running;
	int writer_started;    /* atomic: its thread runs writer_main() */
	int stop;              /* atomic */
	int kick;              /* atomic: a wait word, 1 when kicked */
	unsigned file_gen;     /* the destination's file the tables went to */
	int announced;         /* PROCESS blocks written (to the files) */
	int reannounce;        /* a forked child's: write them again */
	uint32_t strings_written, sites_written;
	int32_t tz_offset;     /* the last TZ block's offset */
	uint64_t tz_checked;   /* the latest time the offset is known for */
	char *scratch;         /* TR2_RECORD_BLOCK_MAX + a block head */
	size_t scratch_len;
};

extern const struct trace2_target tr2_tgt_record;

#endif
