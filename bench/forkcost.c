/* make bench: what one fork of a small process costs on this machine (fork, _exit in the
 * child, waitpid), the mean of 300, in microseconds on stdout.  sandcap's rlimit mode
 * forks once per sandbox (the supervisor from the keeper; the child is a
 * clone(CLONE_VM | CLONE_VFORK) of the supervisor), so this is part of its floor; on a
 * nested-virtualised host it is far from free. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(void)
{
	struct timespec a, b;
	int n = 300;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pid_t c = fork();

		if (c < 0)
			return 1;
		if (c == 0)
			_exit(0);
		if (waitpid(c, NULL, 0) != c)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((double) (b.tv_sec - a.tv_sec) * 1e9 + (double) (b.tv_nsec - a.tv_nsec)) /
	       n / 1e3);
	return 0;
}
