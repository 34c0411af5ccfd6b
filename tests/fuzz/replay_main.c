/*
 * main() for the plain (non-libFuzzer) build of a fuzzer: run every file
 * named on the command line, and every file of every directory named
 * there, through LLVMFuzzerTestOneInput(), each apart from the others
 * (replay.h: a forked child each on POSIX).
 *
 * Prints one line per failing input and a summary
 * "<program>: N passed, M failed"; exits 1 if any input failed.
 */
#include "fuzz.h"
#include "replay.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

struct names {
	char **v;
	size_t nr, alloc;
};

static void add_name(struct names *n, char *path)
{
	if (n->nr == n->alloc) {
		n->alloc = n->alloc ? 2 * n->alloc : 64;
		n->v = realloc(n->v, n->alloc * sizeof(*n->v));
		FZ_CHECK(n->v != NULL);
	}
	n->v[n->nr++] = path;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir (not recursive, dot files skipped), sorted. */
static void add_dir(struct names *n, const char *dir)
{
	size_t first = n->nr;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "replay: cannot open %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	while ((e = readdir(d))) {
		char *p;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		p = fz_path(dir, e->d_name);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			add_name(n, p);
		else
			free(p);
	}
	closedir(d);
	qsort(n->v + first, n->nr - first, sizeof(*n->v), by_name);
}

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, alloc = 0, got;

	if (!f)
		return NULL;
	do {
		if (alloc - len < 4096) {
			alloc = alloc ? 2 * alloc : 8192;
			buf = realloc(buf, alloc);
			FZ_CHECK(buf != NULL);
		}
		got = fread(buf + len, 1, alloc - len, f);
		len += got;
	} while (got);
	fclose(f);
	*size = len;
	return buf;
}

void replay_initialize(int *argc, char ***argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(argc, argv);
}

/* The input in a buffer of exactly its size, so that the sanitizers see
 * any read past its end. */
void replay_one(const char *path)
{
	size_t size = 0;
	uint8_t *all = read_all(path, &size), *data;

	if (!all) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		exit(2);
	}
	data = malloc(size ? size : 1);
	FZ_CHECK(data != NULL);
	memcpy(data, all, size);
	free(all);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
}

/* After the last '/' (and on Windows '\\', which Wine puts in argv[0]). */
static const char *base_name(const char *path)
{
	const char *p, *base = path;

	for (p = path; *p; p++)
		if (*p == '/' || (FZ_WINDOWS && *p == '\\'))
			base = p + 1;
	return base;
}

int main(int argc, char **argv)
{
	struct names n = { NULL, 0, 0 };
	size_t i, ok = 0;
	const char *prog = base_name(argv[0]);
	struct stat st;
	int a;

	for (a = 1; a < argc; a++) {
		if (!stat(argv[a], &st) && S_ISDIR(st.st_mode))
			add_dir(&n, argv[a]);
		else
			add_name(&n, strdup(argv[a]));
	}
	ok = replay_all(n.v, n.nr, &argc, &argv);
	printf("%s: %zu passed, %zu failed\n", prog, ok, n.nr - ok);
	for (i = 0; i < n.nr; i++)
		free(n.v[i]);
	free(n.v);
	return ok == n.nr ? 0 : 1;
}
