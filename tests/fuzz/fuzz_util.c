/* Helpers shared by the fuzzers (fuzz.h). */
#include "fuzz.h"
#include "tutf8.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Thread_local unsigned fz_bugs;

void fz_count_bug(const char *file, int line, const char *fmt, va_list ap)
{
	(void)file;
	(void)line;
	(void)fmt;
	(void)ap;
	fz_bugs++;
}

void fz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz check failed at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

unsigned fz_byte(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

unsigned fz_pick(struct fz_in *in, unsigned n)
{
	return fz_byte(in) % n;
}

uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v = (uint16_t)fz_byte(in);

	return (uint16_t)(v | fz_byte(in) << 8);
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v | (uint32_t)fz_u16(in) << 16;
}

uint64_t fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v | (uint64_t)fz_u32(in) << 32;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	FZ_CHECK(p != NULL);
	return p;
}

void *fz_pool_keep(struct fz_pool *pool, void *p)
{
	if (pool->nr == pool->alloc) {
		pool->alloc = pool->alloc ? 2 * pool->alloc : 16;
		pool->v = realloc(pool->v, pool->alloc * sizeof(*pool->v));
		FZ_CHECK(pool->v != NULL);
	}
	pool->v[pool->nr++] = p;
	return p;
}

char *fz_str(struct fz_in *in, struct fz_pool *pool, size_t max, int no_lf)
{
	size_t want = fz_byte(in), i;
	char *s;

	if (want > max)
		want = max;
	if (want > in->n)
		want = in->n;
	s = fz_pool_keep(pool, xmalloc(want + 1));
	for (i = 0; i < want && in->p[i]; i++)
		s[i] = no_lf && in->p[i] == '\n' ? ' ' : (char)in->p[i];
	s[i] = '\0';
	in->p += want;
	in->n -= want;
	return s;
}

char *fz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fz_pool_free(struct fz_pool *pool)
{
	size_t i;

	for (i = 0; i < pool->nr; i++)
		free(pool->v[i]);
	free(pool->v);
	pool->v = NULL;
	pool->nr = pool->alloc = 0;
}

void fz_buf_add(struct fz_buf *b, const void *data, size_t n)
{
	if (b->alloc - b->len <= n) {
		while (b->alloc - b->len <= n)
			b->alloc = b->alloc ? 2 * b->alloc : 64;
		b->p = realloc(b->p, b->alloc);
		FZ_CHECK(b->p != NULL);
	}
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void fz_buf_adds(struct fz_buf *b, const char *s)
{
	fz_buf_add(b, s, strlen(s));
}

void fz_buf_addc(struct fz_buf *b, char c)
{
	fz_buf_add(b, &c, 1);
}

void fz_buf_free(struct fz_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->alloc = 0;
}

void fz_utf8_repair(struct fz_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	fz_buf_add(out, "", 0);
	while (i < len) {
		n = tutf8_seq(u + i, len - i);
		if (n) {
			fz_buf_add(out, s + i, n);
			i += n;
		} else {
			fz_buf_adds(out, "\xEF\xBF\xBD");
			i++;
		}
	}
}

void fz_json_quote(struct fz_buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	fz_buf_addc(out, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *short_form = NULL;

		switch (c) {
		case '"': short_form = "\\\""; break;
		case '\\': short_form = "\\\\"; break;
		case '\n': short_form = "\\n"; break;
		case '\r': short_form = "\\r"; break;
		case '\t': short_form = "\\t"; break;
		case '\b': short_form = "\\b"; break;
		case '\f': short_form = "\\f"; break;
		}
		if (short_form) {
			fz_buf_adds(out, short_form);
		} else if (c < 0x20) {
			char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };

			fz_buf_adds(out, u);
		} else
			fz_buf_addc(out, (char)c);
	}
	fz_buf_addc(out, '"');
}

char *fz_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* The directory made by fz_tempdir() and the process that made it. */
static char made_dir[4096];
static pid_t made_by;

/* dir and what is in it: the Windows replay's children make their own
 * directories in its (replay_win32.c), and leave them when they crash. */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = fz_path(dir, e->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			remove_tree(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

static void remove_tempdir(void)
{
	if (getpid() == made_by)
		remove_tree(made_dir);
}

const char *fz_tempdir(const char *tag)
{
	if (made_dir[0])
		return made_dir;
	snprintf(made_dir, sizeof(made_dir), "%s/t2fuzz-%s-XXXXXX", fz_temp_base(), tag);
	FZ_CHECK(fz_mkdtemp(made_dir) != NULL);
	made_by = getpid();
	atexit(remove_tempdir);
	return made_dir;
}
