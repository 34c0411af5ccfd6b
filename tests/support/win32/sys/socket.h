/* Sockets for the Windows build of the tests: only what the test cases
 * that skip on Windows name (tests/support/win32/t2posix.h). */
#ifndef T2_SYS_SOCKET_H
#define T2_SYS_SOCKET_H
#include "t2posix.h"
#define AF_UNIX 1
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_CLOEXEC 02000000
#define SOCK_NONBLOCK 04000
#define MSG_DONTWAIT 0x40
struct sockaddr {
	unsigned short sa_family;
	char sa_data[14];
};
typedef int socklen_t;
int socket(int domain, int type, int protocol);
int bind(int fd, const struct sockaddr *addr, socklen_t len);
int listen(int fd, int backlog);
int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
long recv(int fd, void *buf, size_t len, int flags);
#endif
