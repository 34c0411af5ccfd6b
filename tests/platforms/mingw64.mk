# Included by tests/platforms/cross.mk for make CROSS=mingw64: Windows
# x86-64 with mingw-w64, run under Wine (docs/embedding.md, "Cross
# builds and tests").
# The programs end in .exe; the library is libtrace2.a and libtrace2.dll
# with its import library libtrace2.dll.a, the DLL exporting exactly the
# public interface (src/tr2_exports.sh).  make platform-deps mingw64
# installs the compiler and Wine (tests/platforms/deps.sh mingw64).

# The win32 thread model: the posix one links every program with
# winpthreads' DLL, and a Windows program needs no pthreads.
CROSS_CC ?= x86_64-w64-mingw32-gcc-win32
AR := x86_64-w64-mingw32-ar
EXE := .exe
# Code in a DLL is relocated by the loader: no -fPIC.
PIC :=
# libgcc linked in, so that the programs need only Windows' own DLLs
# (KERNEL32, msvcrt...) under Wine.
override LDLIBS := -static-libgcc
override SHARED := $(BUILD)/libtrace2.dll
DEF := $(BUILD)/gen/libtrace2.def

# The tests that build for Windows (tests/support/t2test_win32.c runs
# their scenarios in child processes); the others need fork(), POSIX
# signals, Unix sockets or /proc.
CROSS_TESTS := test_targets test_destinations test_process test_named_pipe test_t2test \
	test_win_process test_win_places test_ancestry_walk test_config_glob test_config \
	test_escaping test_metrics_define test_probes test_record_target test_scoped_region \
	test_sid_hash test_t2rec test_threads test_tjson test_tool_map test_tool_rotated \
	test_traceparent test_flight test_flight_files test_reopen

# make CROSS=mingw64 builds the tests too.
all: $(CROSS_TESTS:%=$(BUILD)/tests/%.exe)

$(DEF): src/tr2_exports.sh include/trace2.h $(wildcard include/trace2/*.h)
	@mkdir -p $(dir $@)
	src/tr2_exports.sh --def >$@.tmp && mv $@.tmp $@

# The whole static library, exported as the .def file says.
$(SHARED): $(BUILD)/libtrace2.a $(DEF)
	$(CC) -shared $(LDLIBS) -o $@ $(DEF) -Wl,--whole-archive $(BUILD)/libtrace2.a \
		-Wl,--no-whole-archive -Wl,--out-implib,$(BUILD)/libtrace2.dll.a

# C99's printf family (%zu, %lld), not msvcrt's.
CPPFLAGS += -D__USE_MINGW_ANSI_STDIO=1

# Debian has no cmocka nor POSIX regex library for mingw: both built from
# Debian's source once (TRE for regex.h).  The tests and their helpers
# see the POSIX names mingw lacks (tests/support/win32/t2posix.h; the
# cases that need fork, signals or Unix sockets skip on Windows).  mingw's
# format checker knows only msvcrt's formats, not C99's that the tests
# use: the Linux builds check them.  t2test runs the scenarios through
# cmocka's runner (tests/support/t2test_win32.c).
CROSS_CMOCKA := $(BUILD)/testlibs
CROSS_TEST_FLAGS := -I$(CROSS_CMOCKA) -L$(CROSS_CMOCKA) -Itests/support/win32 -include t2posix.h \
	-Wno-format
$(CROSS_CMOCKA):
	tests/platforms/mingw-testlibs.sh $@ $(CC)
$(BUILD)/tests/%: override LDLIBS += -ltre -l:libwinpthread.a -Wl,--wrap=_cmocka_run_group_tests
# The example's threads are POSIX's (mingw-w64's winpthreads, linked in).
$(BUILD)/bin/example-hashsort.exe: override LDLIBS += -l:libwinpthread.a

# The tests run under Wine (tests/platforms/wine.sh, a Wine prefix in
# $(BUILD)/wine made at the first start); the shell tests find beside
# each program a launcher of the same name without .exe that runs it
# there, with the same arguments and exit code.
CROSS_WINE_PREFIX := $(abspath $(BUILD))/wine
CROSS_WINE := $(abspath tests/platforms/wine.sh)
CROSS_RUN := env WINEPREFIX=$(CROSS_WINE_PREFIX) $(CROSS_WINE)
CROSS_RUN_BIN := $(BUILD)/bin
CROSS_RUN_PROGS := trace2-tool trace2 example-hashsort
$(CROSS_RUN_BIN): $(CROSS_RUN_PROGS:%=$(CROSS_RUN_BIN)/%)
$(CROSS_RUN_PROGS:%=$(CROSS_RUN_BIN)/%): $(CROSS_RUN_BIN)/%: $(CROSS_RUN_BIN)/%.exe
	printf '#!/bin/sh\nWINEPREFIX=%s exec %s %s "$$@"\n' \
		'$(CROSS_WINE_PREFIX)' '$(CROSS_WINE)' '$(abspath $<)' >$@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

# The trace2 command reads its arguments in UTF-16 (CommandLineToArgvW,
# tools/sys_win32.c); the library needs no shell32.
$(BUILD)/bin/trace2.exe: override LDLIBS += -lshell32
