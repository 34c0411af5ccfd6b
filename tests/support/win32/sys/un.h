/* Unix sockets' addresses for the Windows build of the tests: the test
 * cases that use them skip on Windows (tests/support/win32/t2posix.h). */
#ifndef T2_SYS_UN_H
#define T2_SYS_UN_H
#include <sys/socket.h>
struct sockaddr_un {
	unsigned short sun_family;
	char sun_path[108];
};
#endif
