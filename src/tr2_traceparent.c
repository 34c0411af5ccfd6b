#include "tr2_traceparent.h"

#include <string.h>

/* n lowercase hex digits; *zero set if all are 0. */
static int lower_hex(const char *s, size_t n, int *zero)
{
	size_t i;

	*zero = 1;
	for (i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
		*zero &= s[i] == '0';
	}
	return 1;
}

int tr2_traceparent_valid(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int zero;

	if (len < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-')
		return 0;
	if (!lower_hex(s, 2, &zero) || !strncmp(s, "ff", 2) ||
	    (len > 55 && (zero || s[55] != '-')))
		return 0;
	return lower_hex(s + 3, 32, &zero) && !zero && lower_hex(s + 36, 16, &zero) &&
	       !zero && lower_hex(s + 53, 2, &zero);
}
