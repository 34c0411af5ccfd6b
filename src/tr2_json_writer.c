/*
 * Git's jw_* JSON writer.  Every call either appends one complete member
 * or element (or opens/closes a container) or leaves the writer exactly
 * as it was: misuse is reported through tr2_bug() and an allocation
 * failure rolls the text back, so a caller never sees half a value.  A
 * container that cannot be opened or closed leaves the writer failed:
 * later calls do nothing, silently, and the value is never traced.
 */
#include "trace2.h"
#include "tr2_json_writer.h"
#include "tr2_sys.h"
#include "tr2_diag.h"
#include "tr2_json.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Growable string: buf is NUL-terminated whenever it is allocated.     */
/* ------------------------------------------------------------------ */

/* Smallest allocation, so short writers need a single malloc. */
#define SB_MIN_ALLOC 64

/* Make room for extra more bytes; false (sb untouched) if impossible. */
static bool sb_grow(struct trace2_strbuf *sb, size_t extra)
{
	size_t need, alloc;
	char *buf;

	if (extra > SIZE_MAX - 1 - sb->len)
		return false;
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return true;
	alloc = sb->alloc > SIZE_MAX / 2 ? SIZE_MAX : sb->alloc * 2;
	if (alloc < need)
		alloc = need;
	if (alloc < SB_MIN_ALLOC)
		alloc = SB_MIN_ALLOC;
	buf = tr2_sys.realloc(sb->buf, alloc);
	if (!buf)
		return false;
	sb->buf = buf;
	sb->alloc = alloc;
	return true;
}

/* Set the length after bytes were written into reserved space. */
static void sb_setlen(struct trace2_strbuf *sb, size_t len)
{
	sb->len = len;
	if (sb->buf)
		sb->buf[len] = '\0';
}

static bool sb_add(struct trace2_strbuf *sb, const char *data, size_t len)
{
	if (!sb_grow(sb, len))
		return false;
	memcpy(sb->buf + sb->len, data, len);
	sb_setlen(sb, sb->len + len);
	return true;
}

static bool sb_addstr(struct trace2_strbuf *sb, const char *s)
{
	return sb_add(sb, s, strlen(s));
}

static bool sb_addch(struct trace2_strbuf *sb, char c)
{
	return sb_add(sb, &c, 1);
}

/* Numbers have no useful upper bound on their length (a double printed
 * with "%f" can take 300 digits), so measure before writing. */
TRACE2_PRINTF(2, 3)
static bool sb_addf(struct trace2_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_grow(sb, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_setlen(sb, sb->len + (size_t)n);
	return true;
}

/* ------------------------------------------------------------------ */
/* Pieces of JSON text.                                                 */
/* ------------------------------------------------------------------ */

static bool add_newline_indent(struct trace2_strbuf *sb, size_t depth)
{
	if (depth > (SIZE_MAX - 1) / 2 || !sb_grow(sb, 1 + 2 * depth))
		return false;
	sb->buf[sb->len] = '\n';
	memset(sb->buf + sb->len + 1, ' ', 2 * depth);
	sb_setlen(sb, sb->len + 1 + 2 * depth);
	return true;
}

static bool add_quoted(struct trace2_strbuf *sb, const char *s)
{
	size_t len = strlen(s);
	char *p;

	/* The bound overflows on 32-bit hosts for strings of about 1 GiB. */
	if (len > (SIZE_MAX - 2) / 6 || !sb_grow(sb, 2 + TR2_JSON_ESCAPED_MAX(len)))
		return false;
	p = sb->buf + sb->len;
	*p++ = '"';
	p += tr2_json_escape(p, s, len);
	*p++ = '"';
	sb_setlen(sb, (size_t)(p - sb->buf));
	return true;
}

/*
 * A NULL string becomes JSON null rather than a crash (docs/api.md,
 * "Rules that apply to every call").
 */
static bool add_string_value(struct trace2_strbuf *sb, const char *s)
{
	return s ? add_quoted(sb, s) : sb_addstr(sb, "null");
}

/* C11 7.21.6.1: a negative precision counts as omitted, so precision < 0
 * prints exactly as "%f" does. */
static bool add_double(struct trace2_strbuf *sb, int precision, double value)
{
	return sb_addf(sb, "%.*f", precision, value);
}

/* A pretty value inside a compact writer: drop each newline and the
 * indentation after it, keeping the space that follows every colon. */
static bool add_unindented(struct trace2_strbuf *sb, const struct trace2_strbuf *src)
{
	size_t i = 0, len = sb->len;

	if (!sb_grow(sb, src->len))
		return false;
	while (i < src->len) {
		if (src->buf[i] != '\n') {
			sb->buf[len++] = src->buf[i++];
			continue;
		}
		for (i++; i < src->len && src->buf[i] == ' '; i++)
			;
	}
	sb_setlen(sb, len);
	return true;
}

/* A pretty value inside a pretty writer: shift its lines right by the
 * indentation of the place it lands in. */
static bool add_reindented(struct trace2_strbuf *sb, const struct trace2_strbuf *src,
			   size_t indent)
{
	size_t i, newlines = 0, len = sb->len;

	for (i = 0; i < src->len; i++)
		newlines += src->buf[i] == '\n';
	if (indent && newlines > (SIZE_MAX - src->len) / indent)
		return false;
	if (!sb_grow(sb, src->len + newlines * indent))
		return false;
	for (i = 0; i < src->len; i++) {
		sb->buf[len++] = src->buf[i];
		if (src->buf[i] == '\n') {
			memset(sb->buf + len, ' ', indent);
			len += indent;
		}
	}
	sb_setlen(sb, len);
	return true;
}

/* ------------------------------------------------------------------ */
/* Writer state.                                                        */
/* ------------------------------------------------------------------ */

/* The failed state: an impossible capacity of the container stack. */
#define FAILED_MARK SIZE_MAX

int tr2_jw_failed(const struct trace2_json_writer *jw)
{
	return jw->open_stack.alloc == FAILED_MARK;
}

static void mark_failed(struct trace2_json_writer *jw)
{
	tr2_sys.free(jw->json.buf);
	tr2_sys.free(jw->open_stack.buf);
	trace2_jw_init(jw);
	jw->open_stack.alloc = FAILED_MARK;
}

/* The innermost open container ('{' or '['), or 0 if none is open. */
static char innermost(const struct trace2_json_writer *jw)
{
	return jw->open_stack.len ? jw->open_stack.buf[jw->open_stack.len - 1] : 0;
}

static const char *container_name(char open)
{
	return open == '{' ? "object" : "array";
}

/* Is want ('{' or '[') the innermost open container?  Reports why not. */
static bool check_inside(const struct trace2_json_writer *jw, char want)
{
	const char *kind = container_name(want);
	char top = innermost(jw);

	if (tr2_jw_failed(jw))
		return false;
	if (top == want)
		return true;
	if (top)
		tr2_bug("json-writer: %s: %s added inside an %s", kind,
			want == '{' ? "member" : "element", container_name(top));
	else if (jw->json.len)
		tr2_bug("json-writer: %s: value already terminated by jw_end()", kind);
	else
		tr2_bug("json-writer: %s: jw_%s_begin() not called", kind, kind);
	return false;
}

static bool can_add_member(const struct trace2_json_writer *jw, const char *key)
{
	if (!check_inside(jw, '{'))
		return false;
	if (!key) {
		tr2_bug("json-writer: object: NULL key");
		return false;
	}
	return true;
}

static bool can_add_element(const struct trace2_json_writer *jw)
{
	return check_inside(jw, '[');
}

static bool can_begin(const struct trace2_json_writer *jw, char open)
{
	const char *kind = container_name(open);

	if (tr2_jw_failed(jw))
		return false;
	if (!jw->json.len)
		return true;
	tr2_bug("json-writer: %s: jw_%s_begin() on a writer already in use",
		kind, kind);
	return false;
}

/* Git's own message: the EVENT target reports an unfinished data_json
 * value the same way. */
static bool is_complete_value(const struct trace2_json_writer *value)
{
	if (trace2_jw_is_terminated(value))
		return true;
	if (value && tr2_jw_failed(value))
		return false; /* its failure was silent; so is this */
	tr2_bug("json-writer: object: missing jw_end(): '%s'",
		value && value->json.buf ? value->json.buf : "");
	return false;
}

/* What comes before every member and element. */
static bool add_separator(struct trace2_json_writer *jw)
{
	if (jw->need_comma && !sb_addch(&jw->json, ','))
		return false;
	return !jw->pretty || add_newline_indent(&jw->json, jw->open_stack.len);
}

static bool add_key(struct trace2_json_writer *jw, const char *key)
{
	return add_separator(jw) && add_quoted(&jw->json, key) &&
	       sb_addstr(&jw->json, jw->pretty ? ": " : ":");
}

/* Compact text holds no raw newline (strings escape theirs), so it is
 * copied as is; only a pretty value needs its layout adapted. */
static bool add_sub_value(struct trace2_json_writer *jw, const struct trace2_json_writer *value)
{
	if (!value->pretty)
		return sb_add(&jw->json, value->json.buf, value->json.len);
	if (!jw->pretty)
		return add_unindented(&jw->json, &value->json);
	return add_reindented(&jw->json, &value->json, 2 * jw->open_stack.len);
}

/* Keep a member or element whose text was written from mark on, or take
 * the text back if writing it failed. */
static void finish_item(struct trace2_json_writer *jw, size_t mark, bool ok)
{
	if (ok)
		jw->need_comma = 1;
	else
		sb_setlen(&jw->json, mark);
}

static bool open_container(struct trace2_json_writer *jw, bool ok, char open)
{
	if (ok && sb_addch(&jw->json, open) && sb_addch(&jw->open_stack, open)) {
		jw->need_comma = 0;
		return true;
	}
	mark_failed(jw);
	return false;
}

static void add_member_literal(struct trace2_json_writer *jw, const char *key,
			       const char *literal)
{
	size_t mark = jw->json.len;

	if (can_add_member(jw, key))
		finish_item(jw, mark, add_key(jw, key) &&
				      sb_addstr(&jw->json, literal));
}

static void add_element_literal(struct trace2_json_writer *jw, const char *literal)
{
	size_t mark = jw->json.len;

	if (can_add_element(jw))
		finish_item(jw, mark, add_separator(jw) &&
				      sb_addstr(&jw->json, literal));
}

/* All n elements or none: an argv is one value to the caller. */
static void add_string_elements(struct trace2_json_writer *jw, const char **v, size_t n)
{
	size_t mark = jw->json.len, i;
	unsigned int need_comma = jw->need_comma;
	bool ok = true;

	if (!can_add_element(jw))
		return;
	for (i = 0; ok && i < n; i++) {
		ok = add_separator(jw) && add_string_value(&jw->json, v[i]);
		jw->need_comma = 1;
	}
	if (!ok) {
		sb_setlen(&jw->json, mark);
		jw->need_comma = need_comma;
	}
}

/* ------------------------------------------------------------------ */
/* Public API.                                                          */
/* ------------------------------------------------------------------ */

void trace2_jw_init(struct trace2_json_writer *jw)
{
	*jw = (struct trace2_json_writer)TRACE2_JSON_WRITER_INIT;
}

void trace2_jw_release(struct trace2_json_writer *jw)
{
	tr2_sys.free(jw->json.buf);
	tr2_sys.free(jw->open_stack.buf);
	trace2_jw_init(jw);
}

void trace2_jw_object_begin(struct trace2_json_writer *jw, int pretty)
{
	if (can_begin(jw, '{') && open_container(jw, true, '{'))
		jw->pretty = !!pretty;
}

void trace2_jw_array_begin(struct trace2_json_writer *jw, int pretty)
{
	if (can_begin(jw, '[') && open_container(jw, true, '['))
		jw->pretty = !!pretty;
}

void trace2_jw_object_string(struct trace2_json_writer *jw, const char *key, const char *value)
{
	size_t mark = jw->json.len;

	if (can_add_member(jw, key))
		finish_item(jw, mark, add_key(jw, key) &&
				      add_string_value(&jw->json, value));
}

void trace2_jw_object_intmax(struct trace2_json_writer *jw, const char *key, intmax_t value)
{
	size_t mark = jw->json.len;

	if (can_add_member(jw, key))
		finish_item(jw, mark, add_key(jw, key) &&
				      sb_addf(&jw->json, "%jd", value));
}

void trace2_jw_object_double(struct trace2_json_writer *jw, const char *key, int precision,
		      double value)
{
	size_t mark = jw->json.len;

	if (can_add_member(jw, key))
		finish_item(jw, mark, add_key(jw, key) &&
				      add_double(&jw->json, precision, value));
}

void trace2_jw_object_true(struct trace2_json_writer *jw, const char *key)
{
	add_member_literal(jw, key, "true");
}

void trace2_jw_object_false(struct trace2_json_writer *jw, const char *key)
{
	add_member_literal(jw, key, "false");
}

void trace2_jw_object_bool(struct trace2_json_writer *jw, const char *key, int value)
{
	add_member_literal(jw, key, value ? "true" : "false");
}

void trace2_jw_object_null(struct trace2_json_writer *jw, const char *key)
{
	add_member_literal(jw, key, "null");
}

void trace2_jw_object_sub_jw(struct trace2_json_writer *jw, const char *key,
		      const struct trace2_json_writer *value)
{
	size_t mark = jw->json.len;

	if (can_add_member(jw, key) && is_complete_value(value))
		finish_item(jw, mark, add_key(jw, key) && add_sub_value(jw, value));
}

void trace2_jw_object_inline_begin_object(struct trace2_json_writer *jw, const char *key)
{
	if (can_add_member(jw, key))
		open_container(jw, add_key(jw, key), '{');
}

void trace2_jw_object_inline_begin_array(struct trace2_json_writer *jw, const char *key)
{
	if (can_add_member(jw, key))
		open_container(jw, add_key(jw, key), '[');
}

void trace2_jw_array_string(struct trace2_json_writer *jw, const char *value)
{
	add_string_elements(jw, &value, 1);
}

void trace2_jw_array_intmax(struct trace2_json_writer *jw, intmax_t value)
{
	size_t mark = jw->json.len;

	if (can_add_element(jw))
		finish_item(jw, mark, add_separator(jw) &&
				      sb_addf(&jw->json, "%jd", value));
}

void trace2_jw_array_double(struct trace2_json_writer *jw, int precision, double value)
{
	size_t mark = jw->json.len;

	if (can_add_element(jw))
		finish_item(jw, mark, add_separator(jw) &&
				      add_double(&jw->json, precision, value));
}

void trace2_jw_array_true(struct trace2_json_writer *jw)
{
	add_element_literal(jw, "true");
}

void trace2_jw_array_false(struct trace2_json_writer *jw)
{
	add_element_literal(jw, "false");
}

void trace2_jw_array_bool(struct trace2_json_writer *jw, int value)
{
	add_element_literal(jw, value ? "true" : "false");
}

void trace2_jw_array_null(struct trace2_json_writer *jw)
{
	add_element_literal(jw, "null");
}

void trace2_jw_array_sub_jw(struct trace2_json_writer *jw, const struct trace2_json_writer *value)
{
	size_t mark = jw->json.len;

	if (can_add_element(jw) && is_complete_value(value))
		finish_item(jw, mark, add_separator(jw) && add_sub_value(jw, value));
}

/* A negative argc or NULL argv adds nothing rather than crashing. */
void trace2_jw_array_argc_argv(struct trace2_json_writer *jw, int argc, const char **argv)
{
	add_string_elements(jw, argv, argv && argc > 0 ? (size_t)argc : 0);
}

void trace2_jw_array_argv(struct trace2_json_writer *jw, const char **argv)
{
	size_t n = 0;

	while (argv && argv[n])
		n++;
	add_string_elements(jw, argv, n);
}

void trace2_jw_array_inline_begin_object(struct trace2_json_writer *jw)
{
	if (can_add_element(jw))
		open_container(jw, add_separator(jw), '{');
}

void trace2_jw_array_inline_begin_array(struct trace2_json_writer *jw)
{
	if (can_add_element(jw))
		open_container(jw, add_separator(jw), '[');
}

/* NULL is "not terminated" so a missing sub-writer is reported, not
 * dereferenced. */
int trace2_jw_is_terminated(const struct trace2_json_writer *jw)
{
	return jw && jw->json.len && !jw->open_stack.len;
}

void trace2_jw_end(struct trace2_json_writer *jw)
{
	size_t depth = jw->open_stack.len;
	char close;

	if (tr2_jw_failed(jw))
		return;
	if (!depth) {
		tr2_bug("json-writer: jw_end(): no object or array is open");
		return;
	}
	close = innermost(jw) == '{' ? '}' : ']';
	if ((jw->pretty && !add_newline_indent(&jw->json, depth - 1)) ||
	    !sb_addch(&jw->json, close)) {
		mark_failed(jw);
		return;
	}
	sb_setlen(&jw->open_stack, depth - 1);
	jw->need_comma = 1;
}
