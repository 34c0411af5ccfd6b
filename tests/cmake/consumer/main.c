/*
 * A program built on libtrace2 through CMake (tests/cmake/test_cmake.sh):
 * prints the library's version and traces one region, consumer/work.
 */
#include <stdio.h>
#include <trace2.h>

int main(int argc, const char **argv)
{
	(void)argc;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_region_enter("consumer", "work", NULL);
	puts(trace2_version());
	trace2_region_leave("consumer", "work", NULL);
	return trace2_cmd_exit(0);
}
