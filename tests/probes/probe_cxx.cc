/*
 * User probes in C++ (tests/lib/test_probes.sh): the argument descriptions
 * g++ and clang++ give trace2/probe.h's probes, compared with those of
 * the same calls through <sys/sdt.h>; and a probe with a semaphore that
 * evaluates its arguments only while attached (checked by running it:
 * nothing attached, the argument's side effect never happens).
 */
#include <cstdint>
#include <cstdio>

#include "trace2/probe.h"

enum colour { red, green };
enum class small_code : std::int8_t { ok = 0, bad = -1 };

TRACE2_PROBE_DEFINE_SEMAPHORE(t2cxx, gated);

static int evaluated;

static int counted(int v)
{
	evaluated++;
	return v;
}

int main(int argc, char **argv)
{
	std::int8_t s8 = static_cast<std::int8_t>(-argc);
	std::uint16_t u16 = static_cast<std::uint16_t>(argc);
	std::int32_t s32 = -argc;
	std::uint64_t u64 = static_cast<std::uint64_t>(argc) << 40;
	const long &ref = s32 < 0 ? 7L : 8L;
	bool flag = argc > 1;
	colour c = argc > 1 ? green : red;
	small_code sc = argc > 1 ? small_code::bad : small_code::ok;
	char buf[16] = "x";
	const char *name = argv[0];

	TRACE2_PROBE(t2cxx, zero);
	TRACE2_PROBE(t2cxx, ints, s8, u16, s32, u64);
	TRACE2_PROBE(t2cxx, kinds, ref, flag, c, sc);
	TRACE2_PROBE(t2cxx, addrs, buf, name, &s32, argv);
	TRACE2_PROBE(t2cxx, consts, 5, -1, 70000L, "literal");
	TRACE2_PROBE_WITH_SEMAPHORE(t2cxx, gated, counted(argc), name);
	std::printf("evaluated=%d\n", evaluated);
	return 0;
}
