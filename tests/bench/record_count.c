/*
 * record_count.c -- a reader of recordings for the benchmark, written
 * from docs/record-format.md alone: it walks every block and every
 * record (as a whole reader must: records have no length), and counts
 * them.  tests/record/decode.py decodes fields too, but is far too slow
 * for the tens of millions of records of a rate run.
 */
#define _POSIX_C_SOURCE 200809L

#include "record_count.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { B_DROPPED = 6, B_EVENTS = 4, BLOCK_HEAD = 16, MAGIC_LEN = 16, FORMAT_VERSION = 2 };
enum { K_REGION_ENTER = 22, K_REGION_LEAVE = 23 };
enum { HEAD_SITE = 0x80, HEAD_T_REL = 0x40, HEAD_KIND = 0x3f };

/*
 * Each kind's fields after the common part, one letter a field: v a uv
 * or sv, s a str, i an istr, a an argv, 1 a u8.  NULL: not a kind of
 * version 2.
 */
static const char *const kind_fields[31] = {
	[1] = "s", [2] = "", [3] = "a", [4] = "v", [5] = "v", [6] = "v",
	[7] = "ss", [8] = "s", [9] = "a", [10] = "ss", [11] = "s", [12] = "sa",
	[13] = "vvsssavvvs", [14] = "vvsssavvvs", [15] = "vvsssavvvs",
	[16] = "", [17] = "", [18] = "vsav", [19] = "vsav", [20] = "sss",
	[21] = "vs", [22] = "iivs", [23] = "iivs", [24] = "ivis",
	[25] = "ivis11", [26] = "s", [27] = "iivvvv", [28] = "iivvvv",
	[29] = "iiv", [30] = "iiv",
};

struct cur {
	const unsigned char *p, *end;
};

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* A uv: at most 10 bytes, fitting in 64 bits; -1 if not. */
static int get_uv(struct cur *c, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	for (;;) {
		unsigned b;

		if (c->p == c->end || shift > 63)
			return -1;
		b = *c->p++;
		if (shift == 63 && (b & 0x7e))
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
}

static int skip(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		return -1;
	c->p += n;
	return 0;
}

static int skip_bytes(struct cur *c)
{
	uint64_t n;

	return get_uv(c, &n) || skip(c, n);
}

/* A str (0: absent, else length + 1) or, with `in_place`, an istr (1:
 * bytes follow, n >= 2: a table entry). */
static int skip_string(struct cur *c, int in_place)
{
	uint64_t n;

	if (get_uv(c, &n))
		return -1;
	if (in_place)
		return n == 1 ? skip_bytes(c) : 0;
	return n ? skip(c, n - 1) : 0;
}

static int skip_argv(struct cur *c)
{
	uint64_t n;

	if (get_uv(c, &n))
		return -1;
	for (; n > 1; n--) /* count + 1 */
		if (skip_bytes(c))
			return -1;
	return 0;
}

static int skip_field(struct cur *c, char type)
{
	uint64_t v;

	switch (type) {
	case 'v': return get_uv(c, &v);
	case 's': return skip_string(c, 0);
	case 'i': return skip_string(c, 1);
	case 'a': return skip_argv(c);
	default: return skip(c, 1);
	}
}

static int skip_uvs(struct cur *c, int n)
{
	uint64_t v;

	while (n--)
		if (get_uv(c, &v))
			return -1;
	return 0;
}

/* One record, a full record or a site record (a region's, its fields
 * dtime, nesting, [t_rel], site); its kind in *kind. */
static int skip_record(struct cur *c, unsigned *kind)
{
	const char *f;
	unsigned head;
	uint64_t v;
	int t_rel;

	if (c->p == c->end)
		return -1;
	head = *c->p++;
	*kind = head & HEAD_KIND;
	t_rel = !!(head & HEAD_T_REL);
	if (head & HEAD_SITE) {
		if (*kind != K_REGION_ENTER && *kind != K_REGION_LEAVE)
			return -1;
		return skip_uvs(c, 3 + t_rel);
	}
	if (*kind >= sizeof(kind_fields) / sizeof(kind_fields[0]) || !(f = kind_fields[*kind]))
		return -1;
	/* dtime, dt_abs, nesting, [t_rel]; file, line */
	if (skip_uvs(c, 3 + t_rel) || skip_string(c, 1) || get_uv(c, &v))
		return -1;
	for (; *f; f++)
		if (skip_field(c, *f))
			return -1;
	return 0;
}

static int count_events(struct cur *c, struct record_count *n)
{
	uint64_t thread;
	unsigned kind;

	if (get_uv(c, &thread) || skip(c, 16)) /* base_time, base_t_abs */
		return -1;
	while (c->p < c->end) {
		if (skip_record(c, &kind))
			return -1;
		n->records++;
		n->region_records += kind == K_REGION_ENTER || kind == K_REGION_LEAVE;
	}
	return 0;
}

static int count_dropped(struct cur *c, struct record_count *n)
{
	uint64_t thread, count;

	if (get_uv(c, &thread) || get_uv(c, &count))
		return -1;
	n->dropped += count;
	return 0;
}

static int count_blocks(const unsigned char *data, uint64_t size, struct record_count *n)
{
	static const unsigned char magic[8] = { 0x89, 'T', '2', 'R', 0x0D, 0x0A, 0x1A, 0x0A };
	uint64_t at = MAGIC_LEN;

	if (size < MAGIC_LEN || memcmp(data, magic, sizeof(magic)) ||
	    le(data + 8, 2) != FORMAT_VERSION)
		return -1;
	while (at < size) {
		uint64_t len;
		struct cur c;
		int bad = 0;

		if (size - at < BLOCK_HEAD || (len = le(data + at + 4, 4)) > size - at - BLOCK_HEAD)
			return -1; /* cut */
		c.p = data + at + BLOCK_HEAD;
		c.end = c.p + len;
		if (data[at] == B_EVENTS)
			bad = count_events(&c, n);
		else if (data[at] == B_DROPPED)
			bad = count_dropped(&c, n);
		if (bad)
			return -1;
		at += BLOCK_HEAD + len;
	}
	return 0;
}

int record_count_file(const char *path, struct record_count *c)
{
	struct stat st;
	void *data = NULL;
	int fd = open(path, O_RDONLY), bad;

	memset(c, 0, sizeof(*c));
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 ||
	    (data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "bench: cannot read recording %s\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	c->bytes = (uint64_t)st.st_size;
	bad = count_blocks(data, c->bytes, c);
	munmap(data, (size_t)st.st_size);
	if (bad)
		fprintf(stderr, "bench: %s is not a whole recording\n", path);
	return bad ? -1 : 0;
}
