/* Diagnostics in Git's format, each line in one tr2_sys.write(), and the
 * dispatcher's hook. */
#include "trace2.h"
#include "tr2_diag.h"
#include "tr2_sys.h"
#include "tr2_buf.h"

#include "tr2_plat.h"
#include <stdio.h>
#include <unistd.h>

/* Git replaces control characters other than TAB and LF on stderr. */
static void sanitize_controls(char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
			s[i] = '?';
}

/* The host's pending stderr output first.  fflush() is a cancellation
 * point when it writes; no trace2 call may be one (tr2_sys.c). */
static void flush_stderr(void)
{
	int old = tr2_plat_cancel_off();

	fflush(stderr);
	tr2_plat_cancel_back(old);
}

/* "<prefix><message>" on stderr, in one write(). */
static TRACE2_PRINTF(2, 0) void
vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct tr2_buf b;
	size_t start;

	tr2_buf_init(&b);
	tr2_buf_adds(&b, prefix);
	start = b.len;
	tr2_buf_vaddf(&b, fmt, ap);
	if (!b.failed)
		sanitize_controls(b.p + start, b.len - start);
	tr2_buf_addc(&b, '\n');
	flush_stderr();
	if (!b.failed && tr2_sys.write(2, b.p, b.len) < 0)
		b.failed = 1;
	tr2_buf_release(&b);
}

void tr2_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void tr2_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

static tr2_diag_hook_fn *hook;

void tr2_diag_set_hook(tr2_diag_hook_fn *fn)
{
	hook = fn;
}

void tr2_diag_print(const struct tr2_diag *d, const char *fmt, va_list ap)
{
	char prefix[4096];

	switch (d->kind) {
	case TR2_DIAG_BUG:
		snprintf(prefix, sizeof(prefix), "BUG: %s:%d: ", d->file, d->line);
		vreport(prefix, fmt, ap);
		break;
	case TR2_DIAG_FATAL:
		vreport("fatal: ", fmt, ap);
		break;
	case TR2_DIAG_DST_FAILED:
		if (d->announce)
			vreport("warning: ", fmt, ap);
		break;
	}
}

static void raise_diag(const struct tr2_diag *d, const char *fmt, va_list ap)
{
	if (hook)
		hook(d, fmt, ap);
	else
		tr2_diag_print(d, fmt, ap);
}

void tr2_bug_fl(const char *file, int line, const char *fmt, ...)
{
	struct tr2_diag d = { TR2_DIAG_BUG, file, line, NULL, 1 };
	va_list ap;

	va_start(ap, fmt);
	raise_diag(&d, fmt, ap);
	va_end(ap);
}

void tr2_fatal(const char *fmt, ...)
{
	struct tr2_diag d = { TR2_DIAG_FATAL, NULL, 0, NULL, 1 };
	va_list ap;

	va_start(ap, fmt);
	raise_diag(&d, fmt, ap);
	va_end(ap);
}

void tr2_diag_dst_failed(const void *source, int announce, const char *fmt, ...)
{
	struct tr2_diag d = { TR2_DIAG_DST_FAILED, NULL, 0, source, announce };
	va_list ap;

	va_start(ap, fmt);
	raise_diag(&d, fmt, ap);
	va_end(ap);
}
