/*
 * A native stand-in for a cross-built program in build/<platform>/qbin:
 * runs TARGET under the emulator QEMU with this program's own argv[0]
 * (a shell script would only know the path it was found at, and the
 * tests compare argv[0] as they gave it).  QEMU and TARGET are compiled
 * in (tests/platforms/cross.mk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 4, sizeof(*args));
	int n = 0;

	if (!args)
		return 127;
	args[n++] = QEMU;
	args[n++] = "-0";
	args[n++] = argv[0];
	args[n++] = TARGET;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execv(QEMU, args);
	perror(QEMU);
	return 127;
}
