/* JSON string escaping shared by the event target and the JSON writer. */
#ifndef TR2_JSON_H
#define TR2_JSON_H

#include <stddef.h>

/* Worst case output size of tr2_json_escape() for len input bytes. */
#define TR2_JSON_ESCAPED_MAX(len) ((len) * 6)

/*
 * Write s[0..len) as the inside of a JSON string (no quotes) into out,
 * which must hold TR2_JSON_ESCAPED_MAX(len) bytes; return the bytes
 * written.  Escapes as Git does ('"', '\\', \n \r \t \f \b, other control
 * bytes as \u00xx), copies valid UTF-8 unchanged and writes U+FFFD for
 * every byte that does not belong to a valid UTF-8 sequence, so the
 * result is always valid JSON.
 */
size_t tr2_json_escape(char *out, const char *s, size_t len);

/* Worst case output size of tr2_utf8_repair() for len input bytes. */
#define TR2_UTF8_REPAIRED_MAX(len) ((len) * 3)

/*
 * Copy s[0..len) to out (TR2_UTF8_REPAIRED_MAX(len) bytes) with U+FFFD
 * for every byte that does not belong to a valid UTF-8 sequence, as
 * tr2_json_escape() does, and nothing escaped; return the bytes written.
 * Makes JSON text whose strings hold raw bytes (Git's) strict JSON.
 */
size_t tr2_utf8_repair(char *out, const char *s, size_t len);

/* 1 for the bytes tr2_json_escape() does not copy unchanged. */
extern const unsigned char tr2_json_special[256];

#endif
