/*
 * The plain (non-libFuzzer) replay of a fuzzer's inputs: replay_main.c
 * gathers the inputs and runs one; replay_posix.c and replay_win32.c run
 * each of them apart from the others, so that one crashing input is
 * reported by name and the others still run.
 */
#ifndef T2_REPLAY_H
#define T2_REPLAY_H

#include <stddef.h>

/* Seconds one input may take before it counts as a failure (a hang). */
#define REPLAY_TIMEOUT 120

/* The fuzzer's LLVMFuzzerInitialize(), when it has one. */
void replay_initialize(int *argc, char ***argv);

/* Run the input in the file path through LLVMFuzzerTestOneInput(), in
 * this process; exits 2 when the file cannot be read. */
void replay_one(const char *path);

/*
 * Run names[0..nr) (the arguments argc, argv gave, gathered the same way
 * in every process of the replay), each as if alone in a process that
 * replay_initialize() prepared; print "FAIL <name>: <why>" on stderr for
 * each that crashes, fails a check or goes over REPLAY_TIMEOUT.  Returns
 * how many passed.
 */
size_t replay_all(char *const *names, size_t nr, int *argc, char ***argv);

#endif
