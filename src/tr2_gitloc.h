/*
 * Git's own source locations: where Git raises events from inside its
 * code, the output names them (file and line of the normal, perf and
 * event records), so a byte-exact clone names the same ones.  They are
 * constants of the output format, kept here in one place.
 */
#ifndef TR2_GITLOC_H
#define TR2_GITLOC_H

/* The dispatcher's. */
#define TR2_GITLOC_LIST_CONFIG "trace2.c", 439
#define TR2_GITLOC_LIST_ENV "trace2.c", 440
#define TR2_GITLOC_BUG "usage.c", 346
#define TR2_GITLOC_DIE "usage.c", 73
#define TR2_GITLOC_DIE_EXIT "usage.c", 87
#define TR2_GITLOC_WARNING "usage.c", 99
#define TR2_GITLOC_NO_REGION "trace2/tr2_tls.c", 120
#define TR2_GITLOC_ANCESTRY "compat/linux/procinfo.c", 170

/* Git for Windows' process information. */
#define TR2_GITLOC_WIN32_INFO "compat/win32/trace2_win32_process_info.c"
#define TR2_GITLOC_WIN32_DEBUGGER TR2_GITLOC_WIN32_INFO, 127
#define TR2_GITLOC_WIN32_MEMORY TR2_GITLOC_WIN32_INFO, 156
#define TR2_GITLOC_WIN32_ANCESTRY_JSON TR2_GITLOC_WIN32_INFO, 185
#define TR2_GITLOC_WIN32_ANCESTRY TR2_GITLOC_WIN32_INFO, 190

/* The normal target's. */
#define TR2_GITLOC_NORMAL_FILE "trace2/tr2_tgt_normal.c"
#define TR2_GITLOC_NORMAL_SIGNAL 118
#define TR2_GITLOC_NORMAL_ATEXIT 128
#define TR2_GITLOC_NORMAL_TIMER 357
#define TR2_GITLOC_NORMAL_COUNTER 372

/* The perf target's. */
#define TR2_GITLOC_PERF_FILE "trace2/tr2_tgt_perf.c"
#define TR2_GITLOC_PERF_SIGNAL 207
#define TR2_GITLOC_PERF_ATEXIT 219
#define TR2_GITLOC_PERF_TIMER 580
#define TR2_GITLOC_PERF_COUNTER 596

/* The event target's. */
#define TR2_GITLOC_EVENT_FILE "trace2/tr2_tgt_event.c"
#define TR2_GITLOC_EVENT_SIGNAL 191
#define TR2_GITLOC_EVENT_ATEXIT 207
#define TR2_GITLOC_EVENT_TIMER 657
#define TR2_GITLOC_EVENT_COUNTER 678

#endif
