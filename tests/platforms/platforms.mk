# Included at the end of the top Makefile: the targets that run the other
# platforms' builds (docs/embedding.md, "Cross builds and tests").
#   make platform-deps     install the cross compilers, musl-gcc, qemu-user
#                          and the foreign cmocka (tests/platforms/deps.sh)
#   make check-platforms   for aarch64, s390x, i386 and musl: build, run the
#                          tests and the fuzz corpora replay; the timed waits'
#                          tests for i386 with a 64-bit time_t; then compare
#                          the driver's outputs of five builds
#   make check-cross-some  (part of make check) the target and process
#                          tests for aarch64 and s390x, and a recording
#                          read alike on both byte orders
#   make check-windows-some  (part of make check) the Windows build's
#                          target, destination (and UTF-8 path), process
#                          (and Windows process), named-pipe, record
#                          target (its writer thread), flight, rotation,
#                          t2test and MSVC link tests under Wine
#                          (tests/platforms/mingw64.mk)
#   make check-windows     the Windows build's tests, the shell tests (the
#                          driver's scenarios, the trace2 command), the
#                          fuzzers' corpora replay and the DLL's exports
#                          under Wine, then the driver's
#                          outputs compared with the Linux build's; installs
#                          mingw-w64 and Wine, builds cmocka and TRE, on demand
PLATFORMS := aarch64 s390x i386 musl
PLATFORM_BINS := host=build/bin aarch64=build/aarch64/qbin s390x=build/s390x/qbin \
	i386=build/i386/bin musl=build/musl/bin
CROSS_SOME_TESTS := test_targets test_process
# For i386 with a 64-bit time_t: the tests of the library's timed waits.
TIME64_TESTS := test_waits test_destinations test_deferred test_signals

# What make check runs of the Windows build (the rest: make check-windows).
WINDOWS_SOME_TESTS := test_targets test_destinations test_process test_win_process \
	test_named_pipe test_record_target test_t2test test_flight test_reopen
WINDOWS_SOME_TOOL_TESTS := tests/dst/test_utf8_paths.sh tests/lib/test_msvc_link.sh

.PHONY: platform-deps check-platforms check-cross-some check-windows-some check-windows

platform-deps:
	@tests/platforms/deps.sh

# Every platform runs even when one fails; the summary names those that did.
check-platforms: platform-deps
	@$(MAKE) --no-print-directory BUILD=build all
	@failed=; for p in $(PLATFORMS); do \
		start=$$(date +%s); \
		[ $$p = musl ] && echo "== musl: no cmocka for musl in Debian: the shell (driver-based) tests and the fuzz replay only"; \
		$(MAKE) --no-print-directory CROSS=$$p -j2 all >/dev/null && \
		$(MAKE) --no-print-directory CROSS=$$p test fuzz-replay || failed="$$failed $$p"; \
		echo "== $$p: $$(( $$(date +%s) - start )) s"; \
	done; \
	echo "== i386t64: i386 with a 64-bit time_t: $(TIME64_TESTS)"; \
	$(MAKE) --no-print-directory CROSS=i386t64 -j2 all >/dev/null && \
	$(MAKE) --no-print-directory CROSS=i386t64 test \
		TESTS="$(TIME64_TESTS:%=build/i386t64/tests/%)" TOOL_TESTS= || failed="$$failed i386t64"; \
	tests/platforms/same_output.sh $(PLATFORM_BINS) || failed="$$failed same_output"; \
	if [ -n "$$failed" ]; then echo "check-platforms: FAILED:$$failed"; exit 1; fi; \
	echo "check-platforms: all passed ($(PLATFORMS))"

check-cross-some: platform-deps all
	@for p in aarch64 s390x; do \
		$(MAKE) --no-print-directory CROSS=$$p -j2 all >/dev/null && \
		$(MAKE) --no-print-directory CROSS=$$p test \
			TESTS="$(CROSS_SOME_TESTS:%=build/$$p/tests/%)" TOOL_TESTS= || exit 1; \
	done
	tests/platforms/record_byte_order.sh build/bin build/s390x/qbin

check-windows-some:
	@tests/platforms/deps.sh mingw64
	@$(MAKE) --no-print-directory CROSS=mingw64 -j2 all >/dev/null
	@$(MAKE) --no-print-directory CROSS=mingw64 test \
		TESTS="$(WINDOWS_SOME_TESTS:%=build/mingw64/tests/%.exe)" \
		TOOL_TESTS="$(WINDOWS_SOME_TOOL_TESTS)"

# Every part runs even when one fails; the summary names those that did.
check-windows: all
	@tests/platforms/deps.sh mingw64
	@$(MAKE) --no-print-directory CROSS=mingw64 -j2 all >/dev/null
	@failed=; \
	$(MAKE) --no-print-directory CROSS=mingw64 test || failed="$$failed tests"; \
	$(MAKE) --no-print-directory CROSS=mingw64 -j2 fuzz-replay || failed="$$failed fuzz-replay"; \
	tests/check-exports.sh build/mingw64/libtrace2.dll || failed="$$failed exports"; \
	tests/platforms/same_output.sh linux=build/bin windows=build/mingw64/bin || failed="$$failed same_output"; \
	if [ -n "$$failed" ]; then echo "check-windows: FAILED:$$failed"; exit 1; fi; \
	echo "check-windows: all passed"
