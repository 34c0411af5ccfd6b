/* Where a trace2 command writes: standard output, or -o FILE. */
#ifndef T2_OUTPUT_H
#define T2_OUTPUT_H

/*
 * Whether argv[*i] is -o FILE, --output FILE or --output=FILE: 1 with
 * *path set to FILE and *i to its index; 2 when FILE is missing (a usage
 * error of cmd, reported); else 0.
 */
int t2_output_option(const char *cmd, int argc, char **argv, int *i, const char **path);

/*
 * Before a command writes anything: path (-o FILE; NULL or "-" for
 * standard output) opened as standard output, and every input checked
 * (t2_reader_check_paths(): readable, not an output).  Only then is an
 * existing FILE emptied; a FILE this call created is removed again when
 * an input fails.  Returns 0, or 1 after reporting on stderr as
 * "trace2 CMD: ...".
 */
int t2_output_begin(const char *cmd, const char *path, char *const *inputs, int n);

#endif
