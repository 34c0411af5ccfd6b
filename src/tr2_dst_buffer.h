/* Buffered mode (GIT_TRACE2_BUFFER): per-thread buffers of whole records
 * for each destination (tr2_dst_buffer.c). */
#ifndef TR2_DST_BUFFER_H
#define TR2_DST_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct tr2_dst;

/* Buffered mode is on (GIT_TRACE2_BUFFER, set at initialize). */
extern int tr2_dst_buffered;

/* Read the size once at initialize; default_size (0: off) when unset. */
void tr2_dst_buffer_init(size_t default_size);
/* tr2_dst_write() in buffered mode. */
void tr2_dst_write_buffered(struct tr2_dst *dst, const char *buf, size_t len,
			    uint64_t us_now);
/* Write out every thread's buffered records (atexit). */
void tr2_dst_flush_all(void);
/* Flush and free the calling thread's buffers (thread exit). */
void tr2_dst_release_thread(void);
/* From the handler of a fatal signal: write out every buffered record,
 * without locks (the process is about to die). */
void tr2_dst_flush_from_signal(void);

#endif
