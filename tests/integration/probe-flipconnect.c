/* SPDX-License-Identifier: MIT */
/* probe-flipconnect PORT N: the attacker's side of a blocking TCP connect() that sandcap
 * makes on the command's own socket (unixgate.c, other_family()).  N threads each
 * connect() a blocking socket to 127.0.0.1:PORT while a thread of its own keeps clearing
 * O_NONBLOCK on that socket, the open file sandcap shares to connect it, so that sandcap's
 * connect() would block for as long as the kernel retries.  Prints "started", then waits:
 * only --timeout ends it (t-unix.sh). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in target;

static void *
flip(void *arg)
{
	int fd = (int) (long) arg;

	for (;;)
		(void) fcntl(fd, F_SETFL, 0);
	return NULL;
}

static void *
attack(void *arg)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	pthread_t t;

	(void) arg;
	if (s < 0 || pthread_create(&t, NULL, flip, (void *) (long) s) != 0)
		return NULL;
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
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, attack, (void *) (long) i) != 0)
			break;
		(void) usleep(5000);
	}
	printf("started\n");
	fflush(stdout);
	for (;;)
		pause();
}
