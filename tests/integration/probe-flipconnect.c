/* SPDX-License-Identifier: MIT */
/* probe-flipconnect PORT N: the attacker's side of a blocking TCP connect() that sandcap
 * makes on the command's own socket (unixgate.c, other_family()).  N threads, one every
 * 10 ms, each connect() a blocking socket to 127.0.0.1:PORT while one thread keeps
 * clearing O_NONBLOCK on the newest of them, the open file sandcap shares to connect it,
 * so that sandcap's connect() would block for as long as the kernel retries.  Prints
 * "started" once the flipping thread runs; then only --timeout ends it (t-unix.sh). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in target;
static volatile int newest = -1;

static void *
flip(void *arg)
{
	(void) arg;
	for (;;) {
		int fd = newest;

		if (fd >= 0)
			(void) fcntl(fd, F_SETFL, 0);
	}
	return NULL;
}

static void *
attack(void *arg)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);

	(void) arg;
	if (s < 0)
		return NULL;
	newest = s;
	(void) connect(s, (const struct sockaddr *) &target, sizeof(target));
	return NULL;
}

int
main(int argc, char **argv)
{
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: probe-flipconnect PORT N\n");
		return 2;
	}
	target.sin_family = AF_INET;
	target.sin_port = htons((uint16_t) atoi(argv[1]));
	target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	n = atoi(argv[2]);
	{
		pthread_t f;

		if (pthread_create(&f, NULL, flip, NULL) != 0)
			return 1;
	}
	printf("started\n");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, attack, (void *) (long) i) != 0)
			break;
		(void) usleep(10000);
	}
	for (;;)
		pause();
}
