/*
 * Variadic wrappers of the API's _va entry points, for the cmocka tests
 * and the fuzzers: they reach the _va functions, and they take a format
 * that the printf attribute of the API would reject at compile time
 * (NULL, "").  Deliberately without a format attribute.
 */
#ifndef T2VA_H
#define T2VA_H

struct repository;

void t2_error_va(const char *fmt, ...);
void t2_printf_va(const char *fmt, ...);
void t2_printf_va_fl(const char *file, int line, const char *fmt, ...);
void t2_enter_va(const char *category, const char *label,
		 const struct repository *repo, const char *fmt, ...);
void t2_leave_va(const char *category, const char *label,
		 const struct repository *repo, const char *fmt, ...);

#endif
