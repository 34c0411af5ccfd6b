/*
 * Fuzzer: `trace2 validate --listen`'s serving loop (tools/listen.c) and
 * the validator (tools/validate.c) behind it, fed through socket pairs
 * (on Windows message-mode pipes: fz_plat.h) as clients of a collector
 * are.
 *
 * The input's first byte gives the number of clients (1 to 8), its second
 * the reader's line limit (the default 64 MiB, or 64 to 512 bytes, so
 * that clients go over it and are dropped).  The rest is cut into pieces
 * at points its own bytes choose, each piece sent to a client its bytes
 * choose as one packet (SOCK_SEQPACKET: each read() gets one packet, so
 * lines span reads where the input says, the same on every run); then
 * every client closes and the validator serves them all.  Nothing may
 * crash, leak or read out of bounds, and every client's fd is closed.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "validate.h"

#define MAX_CLIENTS 8
/* Packets per client before the rest of its input goes in one: what the
 * socket buffers hold without a reader. */
#define MAX_PACKETS 32

static int devnull = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = open(FZ_NULL_DEVICE, O_WRONLY | O_CLOEXEC);
	return 0;
}

/* Send data[0..n) to the clients: pieces and clients chosen by its bytes. */
static void send_pieces(const int *client, unsigned nclients, const uint8_t *data, size_t n)
{
	unsigned packets[MAX_CLIENTS] = { 0 }, c = 0;
	size_t off = 0, step = n ? data[0] % 61 + 1 : 1;

	while (off < n) {
		size_t k = n - off < step ? n - off : step;

		c = (c + data[off]) % nclients;
		if (++packets[c] == MAX_PACKETS)
			k = n - off; /* the rest, in one */
		FZ_CHECK(fz_send_packet(client[c], data + off, k) == (long)k);
		off += k;
		step = data[off - 1] % 61 + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int client[MAX_CLIENTS], server[MAX_CLIENTS], sv[2], saved;
	unsigned nclients = size ? data[0] % MAX_CLIENTS + 1 : 1, i;
	size_t max_line = size > 1 && data[1] % 4 ? (size_t)32 << (data[1] % 4) : 0;

	FZ_CHECK(devnull >= 0);
	for (i = 0; i < nclients; i++) {
		FZ_CHECK(!fz_packet_pair(sv));
		client[i] = sv[0];
		server[i] = sv[1];
	}
	if (size > 2)
		send_pieces(client, nclients, data + 2, size - 2);
	for (i = 0; i < nclients; i++)
		close(client[i]);
	/* the validator's reports go to standard output */
	fflush(stdout);
	saved = dup(1);
	FZ_CHECK(saved >= 0 && dup2(devnull, 1) == 1);
	validate_streams(server, nclients, max_line);
	fflush(stdout);
	FZ_CHECK(dup2(saved, 1) == 1);
	close(saved);
	for (i = 0; i < nclients; i++)
		FZ_CHECK(fcntl(server[i], F_GETFD) < 0 && errno == EBADF);
	return 0;
}
