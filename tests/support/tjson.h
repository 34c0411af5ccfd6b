/*
 * tjson: a small, strict JSON (RFC 8259) parser for the test suite.
 *
 * Rejects anything invalid: bad UTF-8 in strings (overlong forms,
 * encoded surrogates, > U+10FFFF, truncated sequences), raw control
 * characters in strings, lone surrogates in \u escapes, leading zeros,
 * trailing commas, trailing garbage, a byte order mark, nesting deeper
 * than TJSON_MAX_DEPTH.  Object members are kept in document order and
 * duplicate names are kept too (lookups return the first).
 */
#ifndef TJSON_H
#define TJSON_H

#include <stddef.h>

/* Deepest accepted nesting of arrays and objects. */
#define TJSON_MAX_DEPTH 256

enum tjson_type {
	TJSON_NULL,
	TJSON_BOOL,
	TJSON_NUMBER,
	TJSON_STRING,
	TJSON_ARRAY,
	TJSON_OBJECT
};

struct tjson {
	enum tjson_type type;
	int boolean;		/* TJSON_BOOL */
	double number;		/* TJSON_NUMBER (strtod of text) */
	/*
	 * TJSON_NUMBER: the literal text as written;
	 * TJSON_STRING: decoded bytes, NUL-terminated.
	 */
	char *text;
	size_t len;		/* TJSON_STRING: decoded length (may hold NULs) */
	size_t n;		/* ARRAY/OBJECT: number of children */
	char **keys;		/* OBJECT: decoded member names, in order */
	size_t *key_lens;	/* OBJECT: decoded length of each name */
	struct tjson **items;	/* ARRAY elements / OBJECT values, in order */
};

/*
 * Parse exactly one JSON value (surrounding whitespace allowed) from
 * s[0..len); s need not be NUL-terminated.  Returns NULL on any error;
 * if err != NULL, *err is set to a static description of the first
 * error (NULL on success).
 */
struct tjson *tjson_parse(const char *s, size_t len, const char **err);

/* Free v and everything below it; NULL is allowed. */
void tjson_free(struct tjson *v);

/* Value of the first member named key, or NULL (also if obj is no object). */
const struct tjson *tjson_get(const struct tjson *obj, const char *key);

/* String value of member key, or NULL if absent or not a string. */
const char *tjson_get_str(const struct tjson *obj, const char *key);

/*
 * Comma-joined member names of an object, e.g. "event,sid,thread,time"
 * ("" for {}); NULL if obj is no object or memory runs out.  Caller frees.
 */
char *tjson_keys(const struct tjson *obj);

/*
 * Compact re-serialisation (no spaces): numbers as written, strings
 * escaped minimally (\" \\ \n \r \t \b \f, other bytes below 0x20 as
 * \u00xx lowercase, everything else raw).  NULL if v is NULL or memory
 * runs out.  Caller frees.
 */
char *tjson_dump(const struct tjson *v);

#endif
