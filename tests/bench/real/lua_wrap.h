/*
 * lua_wrap.h -- what lua5.4-wrap.patch puts around lua's calls of C
 * functions (ldo.c precallC) and in its main(), for the "real program"
 * benchmark (run.sh).  One of the variants, chosen when compiling:
 *   (none)            nothing: the program as Debian ships it
 *   LUA_WRAP_TRACE2   a libtrace2 region pair per call
 *   LUA_WRAP_LTTNG    two LTTng-UST tracepoints per call
 * The wrapped variants count their pairs and write the count to the file
 * $LUA_WRAP_PAIRS names at exit, so a recording can be checked against it.
 */
#ifndef LUA_WRAP_H
#define LUA_WRAP_H

#if defined(LUA_WRAP_TRACE2) || defined(LUA_WRAP_LTTNG)
extern unsigned long long lua_wrap_pairs;
void lua_wrap_start(const char **argv);
int lua_wrap_exit(int code);
#endif

#if defined(LUA_WRAP_TRACE2)
#include "trace2.h"
#define lua_wrap_enter() \
	(lua_wrap_pairs++, trace2_region_enter("lua", "cfunc", NULL))
#define lua_wrap_leave() trace2_region_leave("lua", "cfunc", NULL)
#elif defined(LUA_WRAP_LTTNG)
#include "lua_tp.h"
#define lua_wrap_enter() do { \
	lua_wrap_pairs++; \
	lttng_ust_tracepoint(lua_wrap, region_enter, "lua", "cfunc"); \
} while (0)
#define lua_wrap_leave() \
	lttng_ust_tracepoint(lua_wrap, region_leave, "lua", "cfunc")
#else
#define lua_wrap_enter() ((void)0)
#define lua_wrap_leave() ((void)0)
#define lua_wrap_start(argv) ((void)(argv))
#define lua_wrap_exit(code) (code)
#endif

#endif
