/* UTF-8 validity from the definition (tutf8.h). */
#include "tutf8.h"

#include <stdint.h>

size_t tutf8_seq(const unsigned char *s, size_t avail)
{
	/* the smallest code point that needs n bytes (RFC 3629 §3) */
	static const uint32_t min_of_len[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		cp = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		cp = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0; /* a continuation byte, or 0xF8.. (5 and 6 bytes) */
	}
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if (cp < min_of_len[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

int tutf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if (!(n = tutf8_seq(s + i, len - i)))
			return 0;
		i += n;
	}
	return 1;
}
