/*
 * trace2: the command-line tool for Trace2 event logs.  One file per
 * subcommand (convert.c, summary.c, validate.c); the reader (reader.c, json.c) is
 * what they share.
 */
#include <stdio.h>
#include <string.h>

#include "convert.h"
#include "summary.h"
#include "sys.h"
#include "trace2.h"
#include "usage.h"
#include "validate.h"

int main(int argc, char **argv)
{
	const char *cmd;

	t2_sys_binary_stdio(); /* the output is byte for byte the same everywhere */
	if (t2_sys_utf8_args(&argc, &argv)) { /* paths and names in UTF-8 everywhere */
		fprintf(stderr, "trace2: the command line is not Unicode\n");
		return 2;
	}
	cmd = argc > 1 ? argv[1] : NULL;
	if (!cmd) {
		usage_show(NULL, 0);
		return 2;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return usage_show(NULL, 0);
	if (!strcmp(cmd, "--version")) {
		printf("trace2 (libtrace2) %s\n", trace2_version());
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	if (!strcmp(cmd, "help"))
		return usage_show(argc > 2 ? argv[2] : NULL, 0);
	if (!strcmp(cmd, "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(cmd, "summary"))
		return cmd_summary(argc - 1, argv + 1);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc - 1, argv + 1);
	fprintf(stderr, "trace2: unknown command '%s' (see trace2 --help)\n", cmd);
	return 2;
}
