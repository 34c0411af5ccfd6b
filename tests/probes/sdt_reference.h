/*
 * The reference for tests/lib/test_probes.sh: compiled with -include of this
 * file, trace2/probe.h's probes are SystemTap's <sys/sdt.h> probes (its
 * variadic form, no semaphore in the note), so that the argument
 * descriptions of the same calls can be compared with ours.
 */
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>
#define TRACE2_PROBE_AT_(sema, ...) STAP_PROBEV(__VA_ARGS__)
