/* trace2's help texts (see docs/tools.md). */
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct page {
	const char *name;
	const char *synopsis;
	const char *text;
};

static const char main_text[] =
"NAME\n"
"    trace2 - read, convert and check Trace2 event logs\n"
"\n"
"SYNOPSIS\n"
"    trace2 convert --to chrome|perf|normal|event [--brief] [-o FILE] FILE...\n"
"    trace2 convert --to otlp [-o FILE] FILE...\n"
"    trace2 summary [--json] [--top N] [--tree] [FILTER...] [-o FILE] FILE...\n"
"    trace2 validate [--strict] [--quiet] [-o FILE] FILE...\n"
"    trace2 validate [--strict] [--quiet] [-o FILE] --listen af_unix:PATH [--count N]\n"
"    trace2 help [COMMAND]\n"
"    trace2 --help\n"
"    trace2 --version\n"
"\n"
"DESCRIPTION\n"
"    Works on event-format logs (GIT_TRACE2_EVENT), evt \"3\" or \"4\", as\n"
"    written by Git or by libtrace2, and on recordings (GIT_TRACE2_RECORD).\n"
"    A FILE is a log file or a recording, a directory (a\n"
"    directory target: every file in it, in name order) or - for standard\n"
"    input. Logs of many processes may be interleaved in one file. Lines\n"
"    that are not events are reported as FILE:LINE: REASON on standard\n"
"    error and skipped.\n"
"\n"
"    Every command writes to standard output, or to FILE with -o FILE.\n"
"    Nothing is written until every input has been found readable and\n"
"    none is the command's own output (standard output, standard error\n"
"    or -o's FILE, also as a file of an input directory); else the\n"
"    command reports the inputs at fault and exits with status 1.\n"
"\n"
"    Get a log from any Git command:\n"
"        GIT_TRACE2_EVENT=/tmp/status.json git status\n"
"\n"
"COMMANDS\n"
"    convert     an event log as a Chrome trace (a timeline), as the perf\n"
"                or normal target's text, or as OpenTelemetry traces\n"
"    summary     the process tree, region times (count, total, self,\n"
"                quantiles), timers and counters of an event log\n"
"    validate    check an event log (or a live stream) against the event\n"
"                format and the collectors' rules\n"
"    help        show the manual of a command\n"
"\n"
"OPTIONS\n"
"    --version   the version of libtrace2 the command is built with.\n"
"\n"
"EXIT STATUS\n"
"    0 success, 1 a problem found (see each command), 2 usage error.\n"
"\n"
"SEE ALSO\n"
"    docs/tools.md, docs/event-schema.md, docs/targets.md\n";

static const struct page pages[] = {
	{ "convert", "trace2 convert --to chrome|perf|normal|event [--brief] [-o FILE] FILE... | --to otlp [-o FILE] FILE...",
"NAME\n"
"    trace2 convert - an event log as a Chrome trace, as the perf or normal\n"
"    target writes it, or as OpenTelemetry traces\n"
"\n"
"SYNOPSIS\n"
"    trace2 convert --to chrome|perf|normal|event [--brief] [-o FILE] FILE...\n"
"    trace2 convert --to otlp [-o FILE] FILE...\n"
"\n"
"DESCRIPTION\n"
"    Reads every record of the event-format FILEs (a file, a directory\n"
"    target's directory, or - for standard input) and hands it to\n"
"    libtrace2's own perf or normal target, which writes to standard\n"
"    output. Where the event stream carries the information, the output\n"
"    is byte for byte what that target would have written in the same\n"
"    run. It does not carry (docs/tools.md lists them all):\n"
"      - the local time of day: made from the UTC \"time\" in the\n"
"        converter's time zone (set TZ to the traced machine's);\n"
"      - time, file and line in brief event logs: use --brief;\n"
"      - regions and data deeper than GIT_TRACE2_EVENT_NESTING (the event\n"
"        target drops them), and with them the indentation of records\n"
"        written inside them;\n"
"      - printf records of Git before evt \"4\";\n"
"      - bytes that are not UTF-8 (libtrace2 writes U+FFFD), and a\n"
"        pretty data_json's line breaks.\n"
"\n"
"    --to event writes the event target's lines again (a recording as\n"
"    GIT_TRACE2_EVENT would have written it; its GIT_TRACE2_EVENT_NESTING\n"
"    applies).\n"
"\n"
"    --to chrome writes a Chrome trace (strict JSON, {\"traceEvents\":[...]})\n"
"    through libtrace2's chrome target, one process at a time: what\n"
"    GIT_TRACE2_CHROME would have written, for Perfetto's UI\n"
"    (ui.perfetto.dev), chrome://tracing or DevTools. Processes are pids\n"
"    (from the SIDs; a pid several processes had is the first one's, the\n"
"    others get new ones), regions X slices on their threads, children\n"
"    slices on tracks of their own, linked to the child process by a flow.\n"
"    Events are written metadata first, then in time order. It also reads\n"
"    Chrome files (a file whose first line starts with '[' or\n"
"    {\"traceEvents\":[): GIT_TRACE2_CHROME's, live, cut or whole, or\n"
"    its own output, which it writes again strict, sorted and linked.\n"
"\n"
"    --to otlp writes OpenTelemetry traces as OTLP/JSON, one TracesData\n"
"    object per line, each with spans of one process (what the\n"
"    collector's otlpjsonfile receiver reads): a span per process, per\n"
"    region and per child process run (child_start to child_exit), the\n"
"    child's process span under it. Trace and span ids are hashes of the SIDs, so the logs of\n"
"    one command tree make one trace even when converted apart. A data\n"
"    record trace2/traceparent with a W3C traceparent value puts the\n"
"    command tree into that trace, under that span. Spans are written as\n"
"    they end, once their ids are known (docs/tools.md, \"Streaming and\n"
"    memory\").\n"
"\n"
"OPTIONS\n"
"    --to chrome|perf|normal|event|otlp\n"
"        the output format (required).\n"
"    --brief\n"
"        write the brief form (GIT_TRACE2_PERF_BRIEF, GIT_TRACE2_BRIEF,\n"
"        GIT_TRACE2_CHROME_BRIEF): no time and location columns, no args.\n"
"    -o FILE, --output FILE\n"
"        write to FILE instead of standard output (see trace2 --help).\n"
"\n"
"EXIT STATUS\n"
"    0, or 1 when an input could not be read (or is the output) or the\n"
"    output failed. Malformed lines are reported on standard error and skipped; they do\n"
"    not change the exit status.\n"
"\n"
"EXAMPLE\n"
"    GIT_TRACE2_EVENT=/tmp/log.json GIT_TRACE2_EVENT_NESTING=100 git status\n"
"    trace2 convert --to perf /tmp/log.json\n"
"    trace2 convert --to chrome /tmp/log.json >/tmp/trace.json\n"
"    trace2 convert --to otlp /tmp/log.json >/tmp/traces.jsonl\n" },
	{ "summary", "trace2 summary [--json] [--top N] [--tree] [FILTER...] [-o FILE] FILE...",
"NAME\n"
"    trace2 summary - an event log in short: processes and where time went\n"
"\n"
"SYNOPSIS\n"
"    trace2 summary [--json] [--top N] [--tree] [FILTER...] [-o FILE] FILE...\n"
"    FILTER: --command NAME, --sid PREFIX, --category CATEGORY (each may\n"
"    be repeated: any of them), --since TIME, --until TIME\n"
"\n"
"DESCRIPTION\n"
"    Prints, for the event-format FILEs (a file, a directory target's\n"
"    directory, or - for standard input):\n"
"      - the process tree: each process (SID) with its command name\n"
"        (cmd_name, else its program), mode (cmd_mode), exit code and\n"
"        elapsed time (atexit's or exit's t_abs, else its last record's),\n"
"        its child processes (SID <its SID>/...) indented under it; over\n"
"        50 processes, one line per command name instead: the number of\n"
"        its processes, of those that failed (exit code not 0, a signal\n"
"        or no exit), and their total, min, median and max elapsed time;\n"
"      - per region category/label, over all processes and threads: the\n"
"        count, total time, self time (total minus the regions directly\n"
"        nested in it on its thread), min, median, p95 and max of the\n"
"        region_leave t_rel values, sorted by total. Median and p95 come\n"
"        from a fixed histogram: exact below 1.024 ms, else within 1 %.\n"
"        A region_leave without its region_enter is skipped; regions\n"
"        still open when their thread or process ends are not counted;\n"
"      - the timers and counters (process totals), summed over processes.\n"
"    Memory grows with processes, threads, open regions and distinct\n"
"    names, not with the size of the input.\n"
"\n"
"OPTIONS\n"
"    --json\n"
"        the same as one JSON document (docs/tools.md has its shape).\n"
"    --top N\n"
"        only the N region rows with the largest totals.\n"
"    --tree\n"
"        the process tree however many processes there are.\n"
"    --command NAME\n"
"        only the processes of that command name (as shown), and their\n"
"        records.\n"
"    --sid PREFIX\n"
"        only the processes whose SID starts with PREFIX (a process's SID\n"
"        selects it and its descendants), and their records.\n"
"    --since TIME, --until TIME\n"
"        a time window, UTC as the log writes it (2026-01-31T12:00:00Z;\n"
"        the fraction may be given, the Z left out): only the processes\n"
"        that ran during it (first to last record), and only the regions\n"
"        that ended in it and the timers and counters written in it.\n"
"    --category CATEGORY\n"
"        only the regions, timers and counters of that category.\n"
"    -o FILE, --output FILE\n"
"        write to FILE instead of standard output.\n"
"\n"
"EXIT STATUS\n"
"    0, or 1 when an input could not be read (or is the output) or the\n"
"    output failed, 2 for a usage error. Malformed lines are reported on\n"
"    standard error and skipped.\n"
"\n"
"EXAMPLE\n"
"    GIT_TRACE2_EVENT=/tmp/log.json GIT_TRACE2_EVENT_NESTING=100 git clone ...\n"
"    trace2 summary --top 20 /tmp/log.json\n"
"    trace2 summary --command gc --tree /tmp/logs/\n" },
	{ "validate", "trace2 validate [--strict] [--quiet] [-o FILE] FILE... | --listen af_unix:PATH [--count N]",
"NAME\n"
"    trace2 validate - check event logs against the event format\n"
"\n"
"SYNOPSIS\n"
"    trace2 validate [--strict] [--quiet] [-o FILE] FILE...\n"
"    trace2 validate [--strict] [--quiet] [-o FILE] --listen af_unix:PATH [--count N]\n"
"\n"
"DESCRIPTION\n"
"    Checks every line: valid JSON, the required keys of its event and\n"
"    their types (per evt version), the time format, \"version\" first for\n"
"    every SID, the SID's form and hierarchy, region nesting per thread,\n"
"    threads started before use. Each problem is printed on standard\n"
"    output as\n"
"        FILE:LINE: error: REASON\n"
"        FILE:LINE: warning: REASON\n"
"        FILE:LINE: note: REASON\n"
"    An error is what makes a collector (trace2receiver) drop the\n"
"    process's whole stream. A warning is legal Trace2 that loses data\n"
"    somewhere: a valueless def_param, brief mode's missing time, Git's\n"
"    raw invalid UTF-8, a JSON null string, a region_leave without its\n"
"    region_enter, an unknown event. A note says what the log is (a file\n"
"    that starts mid-process, as after a rotation) and is no problem.\n"
"    docs/event-schema.md is the schema.\n"
"\n"
"OPTIONS\n"
"    --strict\n"
"        exit with status 1 on warnings too.\n"
"    --quiet\n"
"        print no summary line.\n"
"    -o FILE, --output FILE\n"
"        write the problems to FILE instead of standard output.\n"
"    --listen af_unix:PATH\n"
"        be a local stand-in collector: listen on a stream socket at PATH\n"
"        (created; removed at the end), accept connections (one per\n"
"        traced process, as GIT_TRACE2_EVENT=af_unix:PATH makes them) and\n"
"        validate what arrives; the problems are printed as they are found,\n"
"        named PATH#N for the N-th connection. Stops on SIGINT or SIGTERM.\n"
"    --listen //./pipe/NAME\n"
"        on Windows, in place of af_unix:PATH: the same on the named pipe\n"
"        \\\\.\\pipe\\NAME (GIT_TRACE2_EVENT=//./pipe/NAME), clients named\n"
"        //./pipe/NAME#N. Stops on Ctrl-C or Ctrl-Break.\n"
"    --count N\n"
"        with --listen: stop after N connections have closed.\n"
"\n"
"EXIT STATUS\n"
"    0 no error, 1 an error (--strict: or a warning) or unreadable input\n"
"    (or one that is the output), 2 usage error.\n"
"\n"
"EXAMPLE\n"
"    trace2 validate --listen af_unix:/tmp/t2.sock --count 1 &\n"
"    GIT_TRACE2_EVENT=af_unix:/tmp/t2.sock git version\n" },
	{ "help", "trace2 help [COMMAND]",
"NAME\n"
"    trace2 help - show the manual of trace2 or of one of its commands\n"
"\n"
"SYNOPSIS\n"
"    trace2 help [COMMAND]\n"
"    trace2 COMMAND --help\n" },
};

int usage_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++)
		if (!strcmp(pages[i].name, name))
			return 1;
	return 0;
}

const char *usage_option(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	return *i + 1 < argc ? argv[++*i] : "";
}

int usage_show(const char *cmd, int code)
{
	size_t i;

	if (!cmd) {
		fputs(main_text, stdout);
		return code;
	}
	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++)
		if (!strcmp(pages[i].name, cmd)) {
			fputs(pages[i].text, stdout);
			return code;
		}
	fprintf(stderr, "trace2: no such command '%s' (see trace2 --help)\n", cmd);
	return 2;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	fprintf(stderr, "trace2 %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	for (i = 0; i < sizeof(pages) / sizeof(*pages); i++)
		if (!strcmp(pages[i].name, cmd))
			fprintf(stderr, "usage: %s\n", pages[i].synopsis);
	return 2;
}
