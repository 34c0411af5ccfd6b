/* Variadic wrappers of the _va entry points (t2va.h). */
#include "t2va.h"
#include "trace2.h"

#include <stdarg.h>

void t2_error_va(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_cmd_error_va(fmt, ap);
	va_end(ap);
}

void t2_printf_va(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_printf_va(fmt, ap);
	va_end(ap);
}

void t2_printf_va_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_printf_va_fl(file, line, fmt, ap);
	va_end(ap);
}

void t2_enter_va(const char *category, const char *label,
		 const struct repository *repo, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_region_enter_printf_va(category, label, repo, fmt, ap);
	va_end(ap);
}

void t2_leave_va(const char *category, const char *label,
		 const struct repository *repo, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_region_leave_printf_va(category, label, repo, fmt, ap);
	va_end(ap);
}
