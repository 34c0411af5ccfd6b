/*
 * Running a subcommand of the trace2 command (tools/: cmd_convert,
 * cmd_summary, cmd_validate) in the fuzzer's process, on the input as
 * files of a scratch directory, as a user runs it on a trace directory.
 *
 * The input becomes the files "0", "1", ... of the directory: a line
 * holding only a form feed ("\f") starts the next file (at most
 * FZ_CMD_FILES), so that one input can spread processes and cut last
 * lines over several files.  The command's standard output goes to a
 * scratch file, its standard error to /dev/null; the sanitizers' reports
 * still go to the real standard error.  Files the process writes are
 * limited to 256 MiB (RLIMIT_FSIZE; Windows has none: there the output's
 * size is checked after the command): more output than that is a finding.
 * fz_cmd.c defines the fuzzers' LLVMFuzzerInitialize(), which sets this
 * up.
 */
#ifndef T2_FZ_CMD_H
#define T2_FZ_CMD_H

#include <stddef.h>
#include <stdint.h>

#define FZ_CMD_FILES 8

typedef int (*fz_cmd_fn)(int argc, char **argv);

/* What the command wrote on standard output (NUL-terminated after len). */
struct fz_cmd_out {
	char *p;
	size_t len;
};

/*
 * cmd with the options opts (NULL-terminated) and the input's directory
 * as its one FILE argument; returns its exit code.  The output stays
 * valid until the next call.
 */
int fz_cmd_run(fz_cmd_fn cmd, const char *const *opts, const uint8_t *data, size_t size,
	       struct fz_cmd_out *out);

/* Whether the output is text a terminal shows as it is: valid UTF-8
 * without control characters but LF. */
int fz_cmd_plain_text(const struct fz_cmd_out *out);

/* The directory given to the command. */
const char *fz_cmd_dir(void);

/* The output's lines, one call per line (without its LF); the last
 * line may lack one. */
void fz_cmd_each_line(const struct fz_cmd_out *out,
		      void (*fn)(const char *line, size_t len, void *ctx), void *ctx);

/*
 * "convert --to format DIR" and "convert --to format --brief DIR" for a
 * format of text lines (perf, normal): the exit code is 0 or 1 and the
 * output whole lines.
 */
void fz_cmd_convert_text(const char *format, const uint8_t *data, size_t size);

#endif
