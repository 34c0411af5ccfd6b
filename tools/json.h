/*
 * A small strict JSON reader for one event line: a top-level object whose
 * members are kept in order with their decoded strings and the raw text of
 * every value.  Not shared with the tests' parser (tests/support/tjson.c).
 */
#ifndef T2_JSON_H
#define T2_JSON_H

#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
	enum jtype type;
	const char *raw;      /* the value's text in the line */
	size_t raw_len;
	/* J_STRING: decoded (UTF-8; invalid input bytes kept as they are) */
	const char *str;
	size_t str_len;
	unsigned bad_utf8 : 1; /* a raw byte that is not valid UTF-8 */
	unsigned has_nul : 1;  /* \u0000 inside */
	unsigned lone_surrogate : 1;
	/* J_ARRAY: the element count; strs is a NULL-terminated vector of the
	 * decoded elements when every element is a string, else NULL */
	size_t count;
	const char **strs;
	unsigned strs_bad_utf8 : 1;
};

struct jmember {
	const char *key;
	struct jval v;
};

struct jobj {
	struct jmember *m;
	size_t n, alloc;
	int duplicate;        /* a key appears twice (the last one counts) */
	const char *dup_key;
	/* storage for decoded strings and vectors, reused line after line */
	char *arena;
	size_t arena_len, arena_used;
	const char **vec;
	size_t vec_alloc, vec_used;
};

void jobj_init(struct jobj *o);
void jobj_free(struct jobj *o);

/*
 * Parse line[0..len) (no newline) as one JSON object.  Returns 0, or -1
 * with a reason in err (and the byte offset of the problem in *at).
 */
int jobj_parse(struct jobj *o, const char *line, size_t len, char *err,
	       size_t errlen, size_t *at);

/* The member named key (the last one), or NULL. */
const struct jval *jobj_get(const struct jobj *o, const char *key);

/* A number that is an integer (an exponent allowed, no fraction left):
 * 0; -1 when v is not one (not a number, a fraction); -2 when it is out
 * of the int64 range. */
int jval_int(const struct jval *v, int64_t *out);
/* A number of seconds as microseconds, rounded half up: 0; -1 when v is
 * not a number; -2 when it is negative or the microseconds do not fit 64
 * bits. */
int jval_micros(const struct jval *v, uint64_t *out);

/* "YYYY-MM-DDTHH:MM:SS.ffffffZ" (exactly) as microseconds since the
 * epoch; 0 or -1. */
int parse_utc_time(const char *s, size_t len, uint64_t *us);

#endif
