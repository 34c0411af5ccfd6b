/*
 * lua_wrap.c -- the wrapped lua's start and exit (lua_wrap.h): libtrace2
 * set up from the environment, or the LTTng-UST probes defined; the
 * count of pairs written where $LUA_WRAP_PAIRS says.
 */
#if defined(LUA_WRAP_LTTNG)
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#endif
#include "lua_wrap.h"

#include <stdio.h>
#include <stdlib.h>

unsigned long long lua_wrap_pairs;

static void write_pair_count(void)
{
	const char *path = getenv("LUA_WRAP_PAIRS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%llu\n", lua_wrap_pairs);
	fclose(f);
}

#if defined(LUA_WRAP_TRACE2)
void lua_wrap_start(const char **argv)
{
	trace2_initialize();
	trace2_cmd_start(argv);
}

int lua_wrap_exit(int code)
{
	write_pair_count();
	return trace2_cmd_exit(code);
}
#else
void lua_wrap_start(const char **argv)
{
	(void)argv;
}

int lua_wrap_exit(int code)
{
	write_pair_count();
	return code;
}
#endif
