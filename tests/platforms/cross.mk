# Included by the top Makefile for make CROSS=<platform> (docs/embedding.md,
# "Cross builds and tests"): the compiler, the build directory and how the
# tests run there.  aarch64 and s390x binaries run under qemu-user; i386
# and musl binaries run natively; mingw64's (Windows) under Wine, set up
# by tests/platforms/mingw64.mk.
CROSS_PLATFORMS := aarch64 s390x i386 i386t64 musl mingw64
ifeq ($(filter $(CROSS),$(CROSS_PLATFORMS)),)
$(error CROSS=$(CROSS): expected one of $(CROSS_PLATFORMS))
endif
.DEFAULT_GOAL := all

CROSS_TRIPLE_aarch64 := aarch64-linux-gnu
CROSS_TRIPLE_s390x := s390x-linux-gnu
CROSS_TRIPLE_i386 := i686-linux-gnu
# i386 with a 64-bit time_t, as 32-bit distributions now build.
CROSS_TRIPLE_i386t64 := i686-linux-gnu
ifeq ($(CROSS),i386t64)
CPPFLAGS += -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64
endif
CROSS_QEMU_aarch64 := qemu-aarch64
CROSS_QEMU_s390x := qemu-s390x
CROSS_TRIPLE := $(CROSS_TRIPLE_$(CROSS))
# Debian's multiarch directory: the triple, but i386-linux-gnu for i686.
CROSS_MULTIARCH := $(subst i686,i386,$(CROSS_TRIPLE))

override BUILD := build/$(CROSS)
ifeq ($(CROSS),mingw64)
include tests/platforms/mingw64.mk
endif
# The platform's compiler (CROSS_CC=... for another name of it), and what
# the build says when it is missing or cannot compile.
CROSS_CC ?= $(if $(filter musl,$(CROSS)),musl-gcc,$(CROSS_TRIPLE)-gcc)
override CC := $(CROSS_CC)
FEATURES_HINT := CROSS=$(CROSS) needs $(CC) and its C library: run make platform-deps
ifeq ($(CROSS),mingw64)
# cmocka: tests/platforms/mingw64.mk.
else ifeq ($(CROSS),musl)
# Debian has no cmocka for musl: the cmocka tests are not built; the
# driver-based shell tests and the fuzz replay run.
CROSS_NO_CMOCKA := 1
# musl-gcc searches musl's headers only; the kernel's (linux/*.h, as
# Alpine's linux-headers package gives them) come from linux-libc-dev.
CROSS_KERNEL_HEADERS := $(BUILD)/kernel-headers
CPPFLAGS += -isystem $(CROSS_KERNEL_HEADERS)
$(shell mkdir -p $(CROSS_KERNEL_HEADERS) && \
	ln -sfn /usr/include/linux $(CROSS_KERNEL_HEADERS)/linux && \
	ln -sfn /usr/include/asm-generic $(CROSS_KERNEL_HEADERS)/asm-generic && \
	ln -sfn /usr/include/x86_64-linux-gnu/asm $(CROSS_KERNEL_HEADERS)/asm)
else
# The foreign architecture's cmocka (libcmocka-dev:<arch>): the header is
# the host's, the library the one in /usr/lib/<multiarch>; both are reached
# through $(BUILD)/cmocka so that no other host directory enters the
# cross compiler's search paths.
CROSS_CMOCKA := $(BUILD)/cmocka
CROSS_TEST_FLAGS := -I$(CROSS_CMOCKA) -L$(CROSS_CMOCKA)
$(CROSS_CMOCKA):
	@test -f /usr/lib/$(CROSS_MULTIARCH)/libcmocka.so.0 || \
		{ echo "no /usr/lib/$(CROSS_MULTIARCH)/libcmocka.so.0: run make platform-deps" >&2; exit 1; }
	@mkdir -p $@
	ln -sf /usr/include/cmocka.h $@/cmocka.h
	ln -sf /usr/lib/$(CROSS_MULTIARCH)/libcmocka.so.0 $@/libcmocka.so
endif

# How a test binary runs: $(CROSS_RUN) <binary> (empty: natively).  Under
# qemu, the tests that start the driver or the trace2 command find native
# launchers in $(CROSS_RUN_BIN) that run $(BUILD)/bin's programs in qemu
# (by its absolute path: some tests run the driver with PATH emptied),
# with the argv[0] they were given.
ifneq ($(CROSS_QEMU_$(CROSS)),)
# No -L /usr/<triple>: the dynamic loader and the libc it finds must come
# from the same glibc build, and the multiarch libc6:<arch> is where the
# loader finds libcmocka's libc; a loader from the cross sysroot with that
# libc makes fork() loop in the child.
CROSS_RUN := $(CROSS_QEMU_$(CROSS))
CROSS_RUN_BIN := $(BUILD)/qbin
# qemu runs the tests 10 to 20 times slower: test_stress's volume is
# scaled as for the sanitizer builds (same checks, fewer events).
T2_STRESS_SCALE ?= 0.05
export T2_STRESS_SCALE
CROSS_RUN_PROGS := trace2-tool trace2 example-hashsort
$(CROSS_RUN_BIN): $(CROSS_RUN_PROGS:%=$(CROSS_RUN_BIN)/%)
$(CROSS_RUN_BIN)/%: tests/platforms/qemu_launch.c $(BUILD)/bin/%
	@mkdir -p $(dir $@)
	@qemu=$$(command -v $(CROSS_RUN)) || { echo "no $(CROSS_RUN): run make platform-deps" >&2; exit 1; }; \
	cc -std=c11 -Wall -Wextra -Werror -O2 -DQEMU="\"$$qemu\"" \
		-DTARGET='"$(abspath $(BUILD))/bin/$*"' $< -o $@
endif
