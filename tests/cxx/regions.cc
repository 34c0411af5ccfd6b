// The C++ side of trace2.h (tests/lib/test_cxx.sh builds it with g++ and
// clang++, -std=c++11 and -std=c++20): trace2::region and the scoped
// macros left by an exception and an early return, own timer and counter
// ids passed as they are, Git's types.  The script checks the event log.
#include <cstdio>
#include <stdexcept>

#include "trace2.h"

static void thrower(int n)
{
	TRACE2_REGION("cxx", "thrower", nullptr);
	TRACE2_REGION_PRINTF("cxx", "message", nullptr, "n=%d", n);
	throw std::runtime_error("boom");
}

static int early(int n)
{
	TRACE2_REGION("cxx", "early", nullptr);
	if (n > 0)
		return n;
	trace2_printf("not reached");
	return 0;
}

int main()
{
	trace2_initialize_clock();
	enum trace2_timer_id timer = trace2_timer_define("cxx", "timer", 0);
	trace2_counter_id counter = trace2_counter_define("cxx", "counter", 1);
	struct json_writer jw = JSON_WRITER_INIT;
	int caught = 0;

	trace2_initialize();
	if (timer < 0 || counter < 0)
		return 2;
	try {
		trace2::region outer("cxx", "outer");

		trace2_timer_start(timer);
		trace2_timer_stop(timer);
		trace2_counter_add(counter, 2);
		thrower(7);
	} catch (const std::runtime_error &e) {
		caught = 1;
		trace2_printf("caught %s", e.what());
	}
	if (!caught || early(3) != 3)
		return 3;
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "caught", caught);
	jw_end(&jw);
	trace2_data_json("cxx", nullptr, "result", &jw);
	jw_release(&jw);
	return trace2_cmd_exit(0);
}
