/* Running a trace2 subcommand on a fuzzer's input (fz_cmd.h). */
#include "fz_cmd.h"
#include "fuzz.h"
#include "tutf8.h"

#include "convert.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the sanitizers write their reports (when linked in). */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/*
 * The most a command may write (its output file included): a larger
 * file is a finding, SIGXFSZ, which libFuzzer reports as "file size
 * exceeded": output that grows with something the input only names (a
 * count, a size).  The perf format's indentation, two dots a level of
 * nesting (at most T2_NESTING_MAX, 100,000), makes a 32 KiB log of
 * records 50 bytes long 120 MiB; 8,000 times the longest input is
 * more than that.
 */
#define FZ_CMD_MAX_OUTPUT (256 << 20)

static const char *dir;
static char *out_path;
static char *file_path[FZ_CMD_FILES];
static int null_fd, keep_out, keep_err;
/* The system stops larger files (POSIX); else read_output() checks. */
static int output_limited;
static struct fz_buf out_buf = FZ_BUF_INIT;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char name[16];
	int i;

	(void)argc;
	(void)argv;
	dir = fz_tempdir("cmd");
	out_path = fz_path(dir, ".out"); /* a dot file: the reader skips it */
	for (i = 0; i < FZ_CMD_FILES; i++) {
		snprintf(name, sizeof(name), "%d", i);
		file_path[i] = fz_path(dir, name);
	}
	output_limited = fz_limit_file_size(FZ_CMD_MAX_OUTPUT);
	null_fd = open(FZ_NULL_DEVICE, O_WRONLY | O_CLOEXEC);
	keep_out = fz_dup_private(1);
	keep_err = fz_dup_private(2);
	FZ_CHECK(null_fd >= 0 && keep_out >= 0 && keep_err >= 0);
	return 0;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	FZ_CHECK(fd >= 0);
	while (n) {
		ssize_t w = write(fd, p, n);

		FZ_CHECK(w > 0);
		p += w;
		n -= (size_t)w;
	}
	close(fd);
}

/* The length of the first file's bytes of p[0..n); *skip: the length of
 * the form feed line after them (0: none, the rest is one file). */
static size_t first_file(const uint8_t *p, size_t n, size_t *skip)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (p[i] == '\f' && p[i + 1] == '\n' && (!i || p[i - 1] == '\n')) {
			*skip = 2;
			return i;
		}
	*skip = 0;
	return n;
}

static void write_input(const uint8_t *data, size_t size)
{
	size_t len, skip = 1;
	int i;

	for (i = 0; i < FZ_CMD_FILES; i++)
		unlink(file_path[i]);
	for (i = 0; skip && i < FZ_CMD_FILES; i++) {
		len = first_file(data, size, &skip);
		if (i + 1 == FZ_CMD_FILES) { /* the last file takes the rest */
			len = size;
			skip = 0;
		}
		write_file(file_path[i], data, len);
		data += len + skip;
		size -= len + skip;
	}
}

static void read_output(struct fz_cmd_out *out)
{
	char chunk[65536];
	ssize_t got;
	int fd = open(out_path, O_RDONLY | O_CLOEXEC);

	FZ_CHECK(fd >= 0);
	out_buf.len = 0;
	fz_buf_add(&out_buf, "", 0);
	while ((got = read(fd, chunk, sizeof(chunk))) > 0)
		fz_buf_add(&out_buf, chunk, (size_t)got);
	FZ_CHECK(got == 0);
	FZ_CHECK(output_limited || out_buf.len <= FZ_CMD_MAX_OUTPUT);
	close(fd);
	out->p = out_buf.p;
	out->len = out_buf.len;
}

int fz_cmd_run(fz_cmd_fn cmd, const char *const *opts, const uint8_t *data, size_t size,
	       struct fz_cmd_out *out)
{
	char *argv[16];
	int argc = 0, ret, fd;

	argv[argc++] = "trace2-subcommand";
	while (*opts && argc < 14)
		argv[argc++] = (char *)*opts++;
	argv[argc++] = (char *)dir;
	argv[argc] = NULL;
	write_input(data, size);

	/* again in each process: in one forked from this one (the replay),
	 * the sanitizers would write to a file named after its pid instead */
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)keep_err);
	fflush(NULL);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FZ_CHECK(fd >= 0 && dup2(fd, 1) == 1 && dup2(null_fd, 2) == 2);
	close(fd);
	ret = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	FZ_CHECK(dup2(keep_out, 1) == 1 && dup2(keep_err, 2) == 2);
	read_output(out);
	return ret;
}

int fz_cmd_plain_text(const struct fz_cmd_out *out)
{
	size_t i;

	for (i = 0; i < out->len; i++)
		if ((unsigned char)out->p[i] < 0x20 && out->p[i] != '\n')
			return 0;
	return tutf8_valid((const unsigned char *)out->p, out->len);
}

const char *fz_cmd_dir(void)
{
	return dir;
}

void fz_cmd_each_line(const struct fz_cmd_out *out,
		      void (*fn)(const char *line, size_t len, void *ctx), void *ctx)
{
	const char *p = out->p, *end = out->p + out->len, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		fn(p, (size_t)(nl - p), ctx);
	}
}

void fz_cmd_convert_text(const char *format, const uint8_t *data, size_t size)
{
	const char *opts[] = { "--to", format, "--brief", NULL };
	struct fz_cmd_out out;
	int n, ret;

	for (n = 3; n >= 2; n--) { /* with --brief, then without */
		opts[n] = NULL;
		ret = fz_cmd_run(cmd_convert, opts, data, size, &out);
		FZ_CHECK(ret == 0 || ret == 1);
		FZ_CHECK(!out.len || out.p[out.len - 1] == '\n');
	}
}
