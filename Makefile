# libtrace2 -- see README.md.  Main targets:
#   make            build/libtrace2.a, build/libtrace2.so, build/bin/* (the trace2
#                   command among them: docs/tools.md)
#   make demo       build and run the example (examples/demo.sh): its perf
#                   trace with the columns explained, its Chrome timeline (in
#                   build/demo, and where to open it), a trace2 summary of
#                   the same run, then (--slowest) a target of its own
#   make check      installs what the tests need if missing (cmocka, the
#                   Chrome viewers, python3), then, in order:
#                   check-plain  make test (every tests/*/test_*.c and
#                                tests/*/test_*.sh; tests/README.md),
#                                tests/check-exports.sh,
#                                check-layers.sh, check-refs.sh (every
#                                document named is in the repository)
#                                and check-valgrind.sh
#                   check-asan   make test and the fuzzers' corpora
#                                replayed, clang with ASan+UBSan
#                                (build/asan)
#                   check-tsan   the threaded tests under TSan (build/tsan)
#                   check-clang  a clang build, no tests (build/clang)
#                   check-posix  make test on the POSIX fallbacks, the
#                                cmocka tests only (TOOL_TESTS=; the
#                                shell tests there in check-long)
#                   check-cross-some  test_targets and test_process built
#                                for aarch64 and s390x, run under qemu;
#                                recordings made on x86-64 and on s390x
#                                read alike by both (record_byte_order.sh)
#                   check-windows-some  the target, destination (and
#                                UTF-8 path), process (and Windows
#                                process), named-pipe, flight, record
#                                target and t2test tests built with
#                                mingw-w64, run under Wine (all of the
#                                Windows build: make check-windows)
#                   test_stress and test_fork run at a small size.  Each
#                   step builds with JOBS jobs and runs JOBS tests at
#                   once (default: one per CPU; JOBS=1 for one at a time).
#   make check-long what make check leaves out: test_stress (16 processes
#                   x 8 threads x 10,000 events) and test_fork (1,000
#                   forks a storm) at full size, the corpora replay in the
#                   plain build, the shell tests on the POSIX fallbacks,
#                   the TSC clock's threaded test for 10 minutes
#   make bench      run the benchmarks in tests/bench/ (docs/performance.md);
#                   also builds ../shared/bench/t2bench.c, the reference
#                   benchmark, when it is there (says so when not)
#   make bench-real Debian's lua5.4 (apt-get source) with every call of a C
#                   function in a region pair, against the unwrapped
#                   program, LTTng-UST and each mode (tests/bench/real/run.sh)
#   make bench-tool the trace2 command's speed and memory on generated
#                   100 MB and 1 GB event logs (tests/bench/tool_speed.sh)
#   make install PREFIX=/usr/local   (and DESTDIR=); make uninstall the same
#   make PLATFORM=posix test
#                   every platform fast path off: the portable POSIX
#                   fallbacks of src/tr2_plat_posix.c, built in build/posix
#   make CROSS=aarch64|s390x|i386|i386t64|musl|mingw64 [test]   the same for another
#                   platform, in build/<platform> (tests/platforms/cross.mk;
#                   CROSS_CC=... names its compiler otherwise)
#   make check-platforms  every platform's tests, under qemu-user where foreign
#                   (make platform-deps installs what they need)
#   make check-windows  the Windows build (make CROSS=mingw64) under Wine:
#                   its tests, the shell tests, the fuzz corpora replay,
#                   its DLL's exports and the driver's output against
#                   Linux's (tests/platforms/platforms.mk)

ifneq ($(CROSS),)
include tests/platforms/cross.mk
endif
CC       ?= cc
# Build jobs and tests at once in make check (the header above).
JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
FUZZ_SECONDS ?= 60
ifeq ($(PLATFORM),posix)
BUILD    ?= build/posix
endif
BUILD    ?= build
PREFIX   ?= /usr/local
CFLAGS   ?= -O2 -g
SAN      ?=
WARN     := -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Isrc -Itargets
# Position-independent code for the shared library (a DLL needs none:
# tests/platforms/mingw64.mk).
PIC      ?= -fPIC
LIB_CFLAGS := $(WARN) $(CFLAGS) $(SAN) $(PIC) -fvisibility=hidden
APP_CFLAGS := $(WARN) $(CFLAGS) $(SAN)
LDLIBS   := -lpthread
# The platform seam's TR2_HAVE_* lines (src/tr2_plat.h), probed with $(CC).
FEATURES := $(BUILD)/gen/tr2_features.h
CPPFLAGS += -I$(BUILD)/gen
FEATURES_ARGS := $(if $(filter posix,$(PLATFORM)),--none) $(CC) $(CPPFLAGS) $(LIB_CFLAGS)
# What the probe's answers depend on: its arguments and the compiler's
# version.  Rewritten only when they change, so that the header is probed
# again exactly then (a new compiler, CC or CFLAGS).
FEATURES_STAMP := $(BUILD)/gen/tr2_features.stamp
# Said when the probe cannot compile (tests/platforms/cross.mk has its own).
FEATURES_HINT ?= check CC and CFLAGS

LIB_SRC  := $(sort $(wildcard src/*.c targets/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# tests/support/test_*.c are tests of the helpers, not helpers.
SUP_SRC  := $(filter-out tests/support/test_%,$(sort $(wildcard tests/support/*.c)))
SUP_OBJ  := $(SUP_SRC:%.c=$(BUILD)/obj/%.o)
# The tests, in folders by what they test (tests/README.md); each cmocka
# test builds into $(BUILD)/tests/ under its own name, which must be unique.
TEST_SRC := $(sort $(wildcard tests/*/test_*.c))
TEST_DUPS := $(strip $(foreach n,$(sort $(notdir $(TEST_SRC))), \
	$(if $(word 2,$(filter %/$n,$(TEST_SRC))),$(filter %/$n,$(TEST_SRC)))))
ifneq ($(TEST_DUPS),)
$(error tests of the same name, one binary in $(BUILD)/tests: $(TEST_DUPS))
endif
vpath test_%.c $(sort $(dir $(TEST_SRC)))
# Programs end in $(EXE) (.exe for Windows, tests/platforms/mingw64.mk).
# A platform may build only some (CROSS_TESTS, tests/platforms/cross.mk).
TESTS    := $(if $(CROSS_NO_CMOCKA),,$(patsubst %,$(BUILD)/tests/%$(EXE),\
	$(or $(CROSS_TESTS),$(basename $(notdir $(TEST_SRC))))))
# The shell tests: scripts on $(BUILD)/bin (the driver, the trace2 command).
TOOL_TESTS := $(sort $(wildcard tests/*/test_*.sh))
# Tests that start threads; they also run under ThreadSanitizer (test_chrome:
# the chrome target on 4 threads in 8 processes).
THREAD_TESTS := $(BUILD)/tests/test_threads $(BUILD)/tests/test_stress $(BUILD)/tests/test_fork \
	$(BUILD)/tests/test_example_slowest $(BUILD)/tests/test_chrome $(BUILD)/tests/test_metrics_define \
	$(BUILD)/tests/test_reopen $(BUILD)/tests/test_categories $(BUILD)/tests/test_deferred \
	$(BUILD)/tests/test_templates $(BUILD)/tests/test_clock $(BUILD)/tests/test_run \
	$(BUILD)/tests/test_record_target $(BUILD)/tests/test_flight $(BUILD)/tests/test_flight_files \
	$(BUILD)/tests/test_stats_target
BINS     := $(BUILD)/bin/trace2-tool$(EXE) $(BUILD)/bin/example-hashsort$(EXE) $(BUILD)/bin/trace2$(EXE)
# The trace2 command (tools/): convert and validate event logs.
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
STATIC   := $(BUILD)/libtrace2.a
# The shared library carries the full version (include/trace2.h); its
# soname and the names programs link with are symlinks to it:
# libtrace2.so -> libtrace2.so.0 -> libtrace2.so.0.1.0.
VERSION  := $(shell sed -n 's/^\#define TRACE2_VERSION_STRING "\(.*\)"/\1/p' include/trace2.h)
SONAME   := libtrace2.so.$(firstword $(subst ., ,$(VERSION)))
SHARED_FILE := libtrace2.so.$(VERSION)
SHARED   := $(BUILD)/$(SHARED_FILE)
# What make install puts under $(DESTDIR)$(PREFIX), and make uninstall removes.
INSTALL_HEADERS := include/trace2.h $(sort $(wildcard include/trace2/*.h))
INSTALLED := bin/trace2 $(INSTALL_HEADERS) lib/libtrace2.a lib/$(SHARED_FILE) lib/$(SONAME) \
	lib/libtrace2.so lib/pkgconfig/trace2.pc

.PHONY: FORCE all lib demo check test test-threads deps chrome-deps install uninstall clean bench bench-valgrind bench-startup \
	bench-tool bench-real \
	fuzz fuzz-replay \
	check-plain check-asan check-tsan check-clang check-long check-posix

all: lib $(BINS)
lib: $(STATIC) $(SHARED)

$(FEATURES_STAMP): FORCE
	@mkdir -p $(dir $@)
	@{ echo '$(subst ','\'',$(FEATURES_ARGS))'; $(CC) --version 2>&1 | head -1; } >$@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# No header unless the probe succeeded: a compiler that cannot compile is
# an error, not a header with every feature 0.
$(FEATURES): src/tr2_features.sh $(FEATURES_STAMP)
	src/tr2_features.sh $(FEATURES_ARGS) >$@.tmp || \
		{ rm -f $@.tmp; echo "$@: $(FEATURES_HINT)" >&2; exit 1; }
	mv $@.tmp $@

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h include/trace2/*.h src/*.h src/*.def targets/*.h tests/support/*.h) \
		$(FEATURES)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# -z nodelete: dlclose() leaves the library loaded, because every thread
# that traced runs its thread-end handler in it, and the atexit record
# belongs to the end of the process.
$(BUILD)/$(SHARED_FILE): $(LIB_OBJ)
	$(CC) -shared $(SAN) -Wl,-soname,$(SONAME) -Wl,-z,nodelete -o $@ $^ $(LDLIBS)
	ln -sf $(SHARED_FILE) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libtrace2.so

$(BUILD)/obj/tools/%.o: tools/%.c $(wildcard tools/*.h include/*.h include/trace2/*.h src/*.h src/*.def targets/*.h) \
		$(FEATURES)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itools $(APP_CFLAGS) -c $< -o $@

$(BUILD)/bin/trace2$(EXE): $(TOOL_OBJ) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(APP_CFLAGS) $(TOOL_OBJ) $(STATIC) $(LDLIBS) -o $@

$(BUILD)/bin/trace2-tool$(EXE): tests/driver/trace2-tool.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(APP_CFLAGS) $< $(STATIC) $(LDLIBS) -o $@

# With the example target (examples/slowest_target.c) for --slowest.
$(BUILD)/bin/example-hashsort$(EXE): examples/hashsort.c examples/slowest_target.c examples/slowest_target.h \
		$(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(APP_CFLAGS) examples/hashsort.c examples/slowest_target.c $(STATIC) \
		$(LDLIBS) -o $@

$(SUP_OBJ): CPPFLAGS += $(CROSS_TEST_FLAGS)
$(SUP_OBJ): | $(CROSS_CMOCKA)
$(BUILD)/tests/test_%$(EXE): test_%.c $(SUP_OBJ) $(STATIC) | $(CROSS_CMOCKA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CROSS_TEST_FLAGS) -Itests/support $(APP_CFLAGS) $< $(SUP_OBJ) $(STATIC) -lcmocka $(LDLIBS) \
		$(TEST_LDFLAGS) -o $@

# It counts the library's clock reads and time formattings.
$(BUILD)/tests/test_shared_time: TEST_LDFLAGS := -Wl,--wrap=clock_gettime \
	-Wl,--wrap=tr2_fmt_local_time -Wl,--wrap=tr2_fmt_utc_time

# It runs its scenarios on a fake monotonic clock.
$(BUILD)/tests/test_categories: TEST_LDFLAGS := -Wl,--wrap=clock_gettime

# It runs its scenarios with known times on a fake monotonic clock.
$(BUILD)/tests/test_stats_target: TEST_LDFLAGS := -Wl,--wrap=clock_gettime

# It counts the library's clock_gettime() calls (the TSC clock's).
$(BUILD)/tests/test_clock: TEST_LDFLAGS := -Wl,--wrap=clock_gettime

# It counts the library's signal mask changes.
$(BUILD)/tests/test_signals: TEST_LDFLAGS := -Wl,--wrap=pthread_sigmask

# It checks the example target, built in with it.
$(BUILD)/tests/test_example_slowest$(EXE): examples/slowest_target.c examples/slowest_target.h
$(BUILD)/tests/test_example_slowest$(EXE): TEST_LDFLAGS := -Iexamples examples/slowest_target.c

# It checks the trace2 command's reader, built in with it.
$(BUILD)/tests/test_tool_reader$(EXE): tools/alloc.c tools/alloc.h tools/json.c tools/json.h tools/reader.c tools/reader.h tools/record.c tools/record.h tools/map.c tools/map.h tools/sys.c tools/sys.h
$(BUILD)/tests/test_tool_reader$(EXE): TEST_LDFLAGS := -Itools tools/alloc.c tools/json.c tools/reader.c tools/record.c tools/map.c tools/sys.c

# It checks the trace2 command's hash map, built in with it.
$(BUILD)/tests/test_tool_map$(EXE): tools/alloc.c tools/alloc.h tools/map.c tools/map.h
$(BUILD)/tests/test_tool_map$(EXE): TEST_LDFLAGS := -Itools tools/alloc.c tools/map.c

# The example hashes and sorts the sources, traced by the perf, chrome and
# event targets at once; then with --slowest, its own target.
demo: all $(CROSS_RUN_BIN)
	@examples/demo.sh $(or $(CROSS_RUN_BIN),$(BUILD)/bin) $(BUILD)/demo src/*.c targets/*.c include/trace2.h

# python3 runs the tests' independent readers (tests/record/decode.py and
# the scripts of the command's tests), which skip without it.
deps: chrome-deps
	@test -f /usr/include/cmocka.h || { \
		echo "installing libcmocka-dev"; \
		apt-get update -qq && apt-get install -y -qq libcmocka-dev; }
	@command -v python3 >/dev/null || { \
		echo "installing python3"; \
		apt-get update -qq && apt-get install -y -qq python3 || \
		echo "deps: python3 not installed; the tests that need it skip"; }
	@command -v strace >/dev/null || { \
		echo "installing strace"; \
		apt-get update -qq && apt-get install -y -qq strace || \
		echo "deps: strace not installed; the tests that need it skip"; }

# The viewers the Chrome tests load traces in, Chrome DevTools' trace
# engine and speedscope (node, npm ci from tests/chrome/package-lock.json
# into build/chrome).  The tests install them on first use too, and skip
# their viewer checks if that fails.
chrome-deps:
	@tests/chrome/install.sh build/chrome || echo "chrome-deps: not installed; the Chrome tests skip their viewer checks"

# Run each test binary from the top directory; BUILD selects the flavour.
test: all $(TESTS) $(CROSS_RUN_BIN)
	@T2_JOBS=$(JOBS) T2_BIN=$(or $(CROSS_RUN_BIN),$(BUILD)/bin) T2_RUN="$(CROSS_RUN)" T2_CROSS=$(CROSS) T2_SAN="$(SAN)" T2_CC="$(CC)" T2_LIB_CFLAGS="$(CPPFLAGS) $(LIB_CFLAGS)" \
		T2_APP_CFLAGS="$(CPPFLAGS) $(APP_CFLAGS)" tests/run-tests.sh $(TESTS) $(TOOL_TESTS)

test-threads: all $(THREAD_TESTS)
	@T2_BIN=$(BUILD)/bin tests/run-tests.sh $(THREAD_TESTS)

check-plain:
	$(MAKE) test
	tests/check-exports.sh $(SHARED)
	tests/check-layers.sh $(BUILD)
	tests/check-refs.sh
	tests/check-valgrind.sh $(BUILD)
check-asan:
	$(MAKE) BUILD=build/asan CC=clang \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		test fuzz-replay
check-tsan:
	$(MAKE) BUILD=build/tsan CC=clang SAN="-fsanitize=thread" test-threads
check-clang:
	$(MAKE) BUILD=build/clang CC=clang all
check-posix:
	$(MAKE) PLATFORM=posix test

# Not part of check: the long runs.  The stress test at full size (16
# processes x 8 threads x 10,000 events, make check: 500), 1,000 forks a
# storm (make check: 100), the fuzz corpora in the plain build (make
# check: under ASan+UBSan), the shell tests with PLATFORM=posix, the TSC
# clock's threaded test for 10 minutes.
check-long: all $(BUILD)/tests/test_stress $(BUILD)/tests/test_fork $(BUILD)/tests/test_clock
	T2_BIN=$(BUILD)/bin T2_STRESS_SCALE=1 $(BUILD)/tests/test_stress
	T2_BIN=$(BUILD)/bin T2_FORKS=1000 $(BUILD)/tests/test_fork
	$(MAKE) fuzz-replay
	$(MAKE) check-posix TESTS=
	T2_CLOCK_SECONDS=600 $(BUILD)/tests/test_clock

check: deps
	$(MAKE) -j$(JOBS) check-plain
	$(MAKE) -j$(JOBS) check-asan
	$(MAKE) -j$(JOBS) check-tsan
	$(MAKE) -j$(JOBS) check-clang
	$(MAKE) -j$(JOBS) check-posix TOOL_TESTS=
	$(MAKE) -j$(JOBS) check-cross-some
	$(MAKE) -j$(JOBS) check-windows-some

# Replay the fuzzers' seed corpora (tests/fuzz/corpus) without libFuzzer.
fuzz-replay: lib
	$(MAKE) -C tests/fuzz BUILD=$(abspath $(BUILD)) CC=$(CC) CFLAGS="$(CFLAGS)" SAN="$(SAN)" \
		RUN="$(CROSS_RUN)" EXE=$(EXE) replay

# libFuzzer (clang, ASan+UBSan): each fuzzer for FUZZ_SECONDS seconds.
fuzz:
	$(MAKE) -C tests/fuzz BUILD=$(abspath $(BUILD)) FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz

bench: all
	$(MAKE) -C tests/bench BUILD=$(abspath $(BUILD))

bench-valgrind: all
	$(MAKE) -C tests/bench valgrind BUILD=$(abspath $(BUILD))

bench-startup: all
	$(MAKE) -C tests/bench startup BUILD=$(abspath $(BUILD))

bench-real: all
	$(MAKE) -C tests/bench real BUILD=$(abspath $(BUILD))

# Sizes in MiB: make bench-tool TOOL_BENCH_SIZES="100 1024"
TOOL_BENCH_SIZES ?= 100 1024
bench-tool: all
	BUILD=$(BUILD) tests/bench/tool_speed.sh $(TOOL_BENCH_SIZES)

install: lib $(BUILD)/bin/trace2
	install -d $(DESTDIR)$(PREFIX)/include/trace2 $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/bin/trace2 $(DESTDIR)$(PREFIX)/bin/trace2
	install -m 644 include/trace2.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(filter include/trace2/%,$(INSTALL_HEADERS)) $(DESTDIR)$(PREFIX)/include/trace2/
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SHARED_FILE) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtrace2.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		src/trace2.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/trace2.pc

# The files of make install, and include/trace2 if that leaves it empty;
# the directories others share (bin, lib, lib/pkgconfig...) stay.
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)$(PREFIX)/%)
	if [ -d $(DESTDIR)$(PREFIX)/include/trace2 ]; then \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PREFIX)/include/trace2; fi

clean:
	rm -rf build

# make -s print-VAR: the variable's words, one a line (tests/cmake/test_cmake.sh
# compares LIB_SRC and INSTALLED with what CMakeLists.txt builds and installs).
print-%:
	@printf '%s\n' $($*)

include tests/platforms/platforms.mk
.SECONDARY:
