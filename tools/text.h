/*
 * What a log says, written for a terminal.  The command's messages and
 * summary name processes, regions and SIDs by the log's strings, which
 * a crafted log fills with control characters: a newline that forges a
 * line of output, escape sequences that the terminal obeys.
 */
#ifndef T2_TEXT_H
#define T2_TEXT_H

#include <stdarg.h>
#include <stdio.h>

/* The longest text text_vprintf() writes: the rest is cut, "...". */
#define TEXT_MAX 4096

/*
 * s as the inside of a JSON string, but with '"' and '\' as they are:
 * control characters as \n, \t, \u001b..., bytes that are not UTF-8 as
 * U+FFFD, the rest unchanged.
 */
void text_put(FILE *f, const char *s);

/* vprintf() into a TEXT_MAX buffer, written by text_put(). */
void text_vprintf(FILE *f, const char *fmt, va_list ap);

#endif
