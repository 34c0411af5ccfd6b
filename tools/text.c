/* What a log says, written for a terminal (text.h). */
#include "text.h"

#include <string.h>

#include "trace2/target.h"


/* Bytes escaped at once: a whole number of UTF-8 sequences. */
#define TEXT_CHUNK 256

/* n, shortened so that s[0..n) does not end inside a UTF-8 sequence
 * that s[n] continues (if one that short starts it). */
static size_t whole_sequences(const char *s, size_t n)
{
	size_t back = 0;

	while (back < 3 && back < n && ((unsigned char)s[n - back] & 0xC0) == 0x80)
		back++;
	return back < n ? n - back : n;
}

void text_put(FILE *f, const char *s)
{
	char out[TRACE2_JSON_ESCAPED_MAX(TEXT_CHUNK)];
	size_t n;

	while (*s) {
		n = strcspn(s, "\"\\");
		if (!n) {
			fputc(*s++, f);
			continue;
		}
		if (n > TEXT_CHUNK)
			n = whole_sequences(s, TEXT_CHUNK);
		fwrite(out, 1, trace2_json_escape(out, sizeof(out), s, n), f);
		s += n;
	}
}

void text_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char buf[TEXT_MAX];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		buf[0] = '\0';
	text_put(f, buf);
	if (n >= (int)sizeof(buf))
		fputs("...", f);
}
