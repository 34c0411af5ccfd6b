#include "tr2_probe.h"
#include "trace2/probe.h"

/*
 * The listener word (trace2.h, TRACE2_ACTIVE()): the dispatcher's bits in
 * its low half, in its high half the semaphore every probe below names,
 * so that a tracer attaching to any of them sends every trace2_*() macro
 * to the library, which then builds the records the probes report, with
 * no target on.  It lives in .probes, a section of the file the program
 * writes to, because the kernel counts tracers in the file's mapping (a
 * .bss word has none).
 */
unsigned int trace2_listener_mask __attribute__((section(".probes")));
extern unsigned int tr2_probe_word __attribute__((alias("trace2_listener_mask")));

/* The semaphore's address: the high half, bytes 2-3 on a little-endian
 * machine (the only ones probes are written for, trace2/probe.h). */
#define TR2_PROBE(...) TRACE2_PROBE_AT_("tr2_probe_word+2", trace2, __VA_ARGS__)

#if TRACE2_PROBE_SUPPORTED
/* Microseconds, the records' resolution, as the probes' nanoseconds. */
static uint64_t ns(uint64_t us)
{
	return us * 1000;
}

static const char *first(const char *const *argv)
{
	return argv ? argv[0] : NULL;
}

void tr2_probe_fire(const struct trace2_event *ev)
{
	const struct trace2_ev_region *r = &ev->region;
	const struct trace2_ev_child *c = &ev->child;

	switch (ev->kind) {
	case TRACE2_EVENT_START:
		TR2_PROBE(start, first(ev->start.argv));
		break;
	case TRACE2_EVENT_EXIT:
		TR2_PROBE(exit, ev->exit.code, ns(ev->t_abs_us));
		break;
	case TRACE2_EVENT_ATEXIT:
		TR2_PROBE(atexit, ev->exit.code, ns(ev->t_abs_us));
		break;
	case TRACE2_EVENT_ERROR:
		TR2_PROBE(error, ev->error.msg);
		break;
	case TRACE2_EVENT_THREAD_START:
		TR2_PROBE(thread_start, ev->thread->name);
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		TR2_PROBE(thread_exit, ev->thread->name, ns(ev->t_rel_us));
		break;
	case TRACE2_EVENT_CHILD_START:
		TR2_PROBE(child_start, c->id, first(c->argv));
		break;
	case TRACE2_EVENT_CHILD_EXIT:
		TR2_PROBE(child_exit, c->id, c->code, ns(ev->t_rel_us), c->pid);
		break;
	case TRACE2_EVENT_REGION_ENTER:
		TR2_PROBE(region_enter, r->category, r->label, ev->nesting);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		TR2_PROBE(region_leave, r->category, r->label, ns(ev->t_rel_us));
		break;
	case TRACE2_EVENT_DATA:
		TR2_PROBE(data, ev->data.category, ev->data.key, ev->data.value);
		break;
	case TRACE2_EVENT_PRINTF:
		TR2_PROBE(printf, ev->printf.msg);
		break;
	default:
		break;
	}
}

void tr2_probe_fire_data_intmax(const char *category, const char *key, intmax_t value)
{
	TR2_PROBE(data_intmax, category, key, value);
}
#else
/* No probes on this architecture (trace2/probe.h): nothing to fire; the
 * dispatcher still calls in while the semaphore half is set. */
void tr2_probe_fire(const struct trace2_event *ev)
{
	(void)ev;
}

void tr2_probe_fire_data_intmax(const char *category, const char *key, intmax_t value)
{
	(void)category;
	(void)key;
	(void)value;
}
#endif

/*
 * A program that reads its own copy of the word (gcc's copy relocation of
 * libtrace2.so's) got the semaphore the library's word held when it
 * started, and nothing after: once no tracer is attached, that copy would
 * send every call to the library for nothing.
 */
void tr2_probe_forget_copy(void)
{
	if (&trace2_listener_mask != &tr2_probe_word)
		__atomic_and_fetch(&trace2_listener_mask, ~TR2_PROBE_SEMAPHORE_BITS,
				   __ATOMIC_RELAXED);
}
