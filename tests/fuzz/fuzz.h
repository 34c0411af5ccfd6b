/*
 * Helpers shared by the fuzzers of tests/fuzz/ (see fuzz_util.c).
 *
 * Every fuzzer is one fuzz_<name>.c defining LLVMFuzzerTestOneInput() (and
 * LLVMFuzzerInitialize() when it needs one-time setup).  It is linked
 * either with libFuzzer (clang -fsanitize=fuzzer) or with replay_main.c,
 * which runs the files of corpus directories through it.
 */
#ifndef T2_FUZZ_H
#define T2_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "fz_plat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed property: print it and abort(), which the fuzzer reports. */
#define FZ_CHECK(cond) \
	((cond) ? (void)0 : fz_fail(__FILE__, __LINE__, "%s", #cond))
_Noreturn void fz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* BUG reports of the calling thread, counted by fz_count_bug() (a
 * trace2_set_bug_handler() callback) instead of exiting. */
extern _Thread_local unsigned fz_bugs;
void fz_count_bug(const char *file, int line, const char *fmt, va_list ap);

/* A cursor over the input; reading past its end yields zeros. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};
unsigned fz_byte(struct fz_in *in);
/* A byte reduced to [0, n) (n > 0). */
unsigned fz_pick(struct fz_in *in, unsigned n);
uint16_t fz_u16(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);
uint64_t fz_u64(struct fz_in *in);

/* Strings taken from the input, all freed at once by fz_pool_free(). */
struct fz_pool {
	char **v;
	size_t nr, alloc;
};
/* Keep p (malloc'ed) until fz_pool_free(); returns p. */
void *fz_pool_keep(struct fz_pool *pool, void *p);
/*
 * A NUL-terminated string: one length byte (at most max), then that many
 * bytes; NUL bytes of the input end the string early.  With no_lf, every
 * LF becomes a space (for the targets that do not escape).
 */
char *fz_str(struct fz_in *in, struct fz_pool *pool, size_t max, int no_lf);
/* A NUL-terminated copy of data[0..size) (caller frees). */
char *fz_cstr(const uint8_t *data, size_t size);
void fz_pool_free(struct fz_pool *pool);

/* A growable byte buffer, NUL-terminated after its len bytes. */
struct fz_buf {
	char *p;
	size_t len, alloc;
};
#define FZ_BUF_INIT { NULL, 0, 0 }
void fz_buf_add(struct fz_buf *b, const void *data, size_t n);
void fz_buf_adds(struct fz_buf *b, const char *s);
void fz_buf_addc(struct fz_buf *b, char c);
void fz_buf_free(struct fz_buf *b);

/*
 * What a strict JSON decoder must make of the bytes s[0..len) that
 * tr2_json_escape() was given: valid UTF-8 sequences as they are, every
 * other byte >= 0x80 as U+FFFD (EF BF BD).
 */
void fz_utf8_repair(struct fz_buf *out, const char *s, size_t len);
/*
 * s[0..len) as a quoted JSON string with the minimal escapes that both Git
 * (docs/targets.md, "JSON strings") and tjson_dump() use: \" \\ \n \r \t \b
 * \f, other bytes below 0x20 as \u00xx (lowercase hex), everything else raw.
 */
void fz_json_quote(struct fz_buf *out, const char *s, size_t len);

/*
 * A fresh private directory: under $TMPDIR if set, else /dev/shm when
 * usable, else /tmp.  It and the files in it are removed when the process
 * that made it exits normally.
 */
const char *fz_tempdir(const char *tag);
/* "<dir>/<name>", malloc'ed (caller frees). */
char *fz_path(const char *dir, const char *name);

#endif
