/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/supervise/rawproc.c: what rlimit mode's keeper runs once it shares its memory
 * with the supervisor (no errno, no allocation): the system-call wrapper, the parsers of
 * /proc text cut into pieces of any size, and the kill of a whole process tree (setsid'd,
 * double-forked, deep, and wider than one round), and the children of every thread. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervise/rawproc.h"

static void
test_rawsys(void **state)
{
	(void) state;
	errno = 1234;
	assert_int_equal(rawsys(SYS_getpid, 0, 0, 0, 0, 0), getpid());
	assert_int_equal(rawsys(SYS_close, -1, 0, 0, 0, 0), -EBADF);
	assert_int_equal(errno, 1234);  /* the supervisor's errno is never touched */
}

/* "12 345 6 7000000\n" fed in every split into two pieces. */
static void
test_pids_split(void **state)
{
	static const char text[] = "12 345 6 7000000 4194304\n";
	size_t len = strlen(text);

	(void) state;
	for (size_t cut = 0; cut <= len; cut++) {
		pid_t out[8];
		struct rawpids p = { .out = out, .max = 8, .cur = -1 };

		rawpids_feed(&p, text, cut);
		rawpids_feed(&p, text + cut, len - cut);
		rawpids_end(&p);
		assert_int_equal(p.n, 5);
		assert_int_equal(out[0], 12);
		assert_int_equal(out[1], 345);
		assert_int_equal(out[2], 6);
		assert_int_equal(out[3], 7000000);
		assert_int_equal(out[4], 4194304);
	}
}

static void
test_pids_limits(void **state)
{
	pid_t out[2];
	struct rawpids p = { .out = out, .max = 2, .cur = -1 };

	(void) state;
	/* No final blank: rawpids_end finishes the last; a number past int is dropped, as
	 * is 0; more than max are dropped (the caller's next round finds them). */
	rawpids_feed(&p, "0 99999999999999999999 5 6 7", 28);
	rawpids_end(&p);
	assert_int_equal(p.n, 2);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 6);
	p = (struct rawpids) { .out = out, .max = 2, .cur = -1 };
	rawpids_feed(&p, "", 0);
	rawpids_end(&p);
	assert_int_equal(p.n, 0);
}

static void
test_stat_ppid(void **state)
{
	static const char *const bad[] = {
		"", "12 (x", "12 (x) R", "12 (x) R ", "12 (x) R 4x 5", "12 (x) R 99999999999 1",
		"12 (x)R 4 5", "no parenthesis R 4 5",
	};
	const char *s;

	(void) state;
	s = "4242 (sandcap) S 4241 4241 100 34816\n";
	assert_int_equal(rawproc_stat_ppid(s, strlen(s)), 4241);
	/* A name with ")", blanks and digits: fields count from the last ")". */
	s = "7 (a) S 1 2 ) T 9 9 9\n";
	assert_int_equal(rawproc_stat_ppid(s, strlen(s)), 9);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rawproc_stat_ppid(bad[i], strlen(bad[i])), -1);
}

static void
test_fmt(void **state)
{
	char buf[24];

	(void) state;
	assert_ptr_equal(rawfmt_u(buf, 0), buf + 1);
	assert_string_equal(buf, "0");
	(void) rawfmt_u(buf, 4242);
	assert_string_equal(buf, "4242");
	(void) rawfmt_u(buf, ULONG_MAX);
	assert_string_equal(buf, "18446744073709551615");
}

/* A child whose two threads each fork a sleeper: rawproc_children() lists both, with the
 * child as their parent (the children of every thread are found).  Everything it starts
 * ends when the test closes hold[1] or dies (a failed assertion leaves nothing behind). */
static int go_pipe[2], hold[2];
static pid_t last_g;    /* in the child: the last sleeper a thread forked */

static _Noreturn void
wait_for_test(void)
{
	char c;

	while (read(hold[0], &c, 1) < 0)
		;
	_exit(0);
}

static void *
thread_fork(void *stay)
{
	pid_t g;

	g = fork();
	if (g == 0)
		wait_for_test();
	last_g = g;
	if (write(go_pipe[1], &g, sizeof(g)) != (ssize_t) sizeof(g))
		_exit(1);
	while (stay != NULL)
		pause();        /* its child stays its own, listed under this task */
	return NULL;
}

/* Is pid among the children of this process's main thread? */
static bool
main_has_child(pid_t pid)
{
	char path[64], buf[4096];
	pid_t out[64];
	struct rawpids p = { .out = out, .max = 64, .cur = -1 };
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int) getpid());
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	rawpids_feed(&p, buf, n);
	rawpids_end(&p);
	for (size_t i = 0; i < p.n; i++)
		if (out[i] == pid)
			return true;
	return false;
}

static void
test_children_of_threads(void **state)
{
	pid_t c, g[2], pv[8], par[8];
	size_t n;
	int found = 0;

	(void) state;
	assert_int_equal(pipe(go_pipe), 0);
	assert_int_equal(pipe(hold), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		pthread_t t;

		close(hold[1]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
			_exit(1);
		/* the first thread ends (its child goes to the main thread), the second stays */
		if (pthread_create(&t, NULL, thread_fork, NULL) != 0 || pthread_join(t, NULL) != 0)
			_exit(1);
		/* The join returns before the kernel hands the ended thread's child over: wait
		 * (10 s at most) until the main thread has it, so nothing below races. */
		for (int i = 0; !main_has_child(last_g); i++) {
			if (i == 1000)
				_exit(1);
			usleep(10000);
		}
		if (pthread_create(&t, NULL, thread_fork, go_pipe) != 0)
			_exit(1);
		while (read(hold[0], &found, 1) < 0)
			;
		while (waitpid(-1, NULL, __WALL) > 0)
			;       /* both sleepers, which end with us */
		_exit(0);
	}
	close(hold[0]);
	assert_int_equal(read(go_pipe[0], &g[0], sizeof(pid_t)), sizeof(pid_t));
	assert_int_equal(read(go_pipe[0], &g[1], sizeof(pid_t)), sizeof(pid_t));
	pv[0] = 4242;   /* entries before n are kept */
	n = rawproc_children(c, pv, par, 1, 8);
	assert_int_equal(n, 3);
	assert_int_equal(pv[0], 4242);
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(par[i], c);
		found += pv[i] == g[0] || pv[i] == g[1];
	}
	assert_int_equal(found, 2);
	/* max is kept */
	assert_int_equal(rawproc_children(c, pv, par, 7, 8), 8);
	assert_int_equal(rawproc_children(999999999, pv, par, 0, 8), 0);
	close(hold[1]);
	assert_int_equal(waitpid(c, NULL, 0), c);
	close(go_pipe[0]);
	close(go_pipe[1]);
}

enum { WIDE = 600, DEEP = 6 };

static void
announce(int fd)
{
	pid_t me = getpid();

	if (write(fd, &me, sizeof(me)) != (ssize_t) sizeof(me))
		_exit(1);
}

/* A chain of depth d below us, each link announcing itself. */
static _Noreturn void
chain(int fd, int d)
{
	announce(fd);
	while (d-- > 0) {
		if (fork() != 0)
			break;
		announce(fd);   /* the next link */
	}
	wait_for_test();        /* killed before, unless the test failed */
}

/* The subreaper: builds the tree, waits for every process to announce itself, kills the
 * tree and reports (count killed, every pid seen) on out. */
static _Noreturn void
subreaper(int out, int n_expected)
{
	int p[2];
	pid_t *seen = calloc((size_t) n_expected, sizeof(pid_t));
	unsigned killed;

	if (seen == NULL || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 || pipe(p) < 0)
		_exit(2);
	if (fork() == 0) {              /* setsid'd */
		(void) setsid();
		chain(p[1], 0);
	}
	if (fork() == 0) {              /* double-forked: its parent exits at once */
		if (fork() == 0)
			chain(p[1], 0);
		_exit(0);
	}
	if (fork() == 0)                /* deep */
		chain(p[1], DEEP - 1);
	for (int i = 0; i < WIDE; i++)  /* wider than one round (512) */
		if (fork() == 0)
			chain(p[1], 0);
	for (int i = 0; i < n_expected; i++)
		if (read(p[0], &seen[i], sizeof(pid_t)) != (ssize_t) sizeof(pid_t))
			_exit(3);
	killed = rawproc_kill_tree(getpid());
	if (waitpid(-1, NULL, WNOHANG | __WALL) != -1 || errno != ECHILD)
		_exit(4);               /* a child is left */
	if (write(out, &killed, sizeof(killed)) != (ssize_t) sizeof(killed) ||
	    write(out, seen, sizeof(pid_t) * (size_t) n_expected) !=
		    (ssize_t) (sizeof(pid_t) * (size_t) n_expected))
		_exit(5);
	_exit(0);
}

static void
test_kill_tree(void **state)
{
	int n = 1 + 1 + DEEP + WIDE, p[2], st;
	pid_t *seen = calloc((size_t) n, sizeof(pid_t)), sr;
	unsigned killed = 0;

	(void) state;
	assert_non_null(seen);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(hold), 0);
	sr = fork();
	assert_true(sr >= 0);
	if (sr == 0) {
		close(p[0]);
		close(hold[1]);
		subreaper(p[1], n);
	}
	close(p[1]);
	close(hold[0]);
	assert_int_equal(read(p[0], &killed, sizeof(killed)), sizeof(killed));
	assert_int_equal(read(p[0], seen, sizeof(pid_t) * (size_t) n), sizeof(pid_t) * (size_t) n);
	assert_int_equal(waitpid(sr, &st, 0), sr);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Every process was killed once (the double-fork's middle process had exited). */
	assert_int_equal(killed, (unsigned) n);
	for (int i = 0; i < n; i++)
		assert_true(kill(seen[i], 0) < 0 && errno == ESRCH);
	free(seen);
	close(p[0]);
	close(hold[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rawsys),
		cmocka_unit_test(test_pids_split),
		cmocka_unit_test(test_pids_limits),
		cmocka_unit_test(test_stat_ppid),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_children_of_threads),
		cmocka_unit_test(test_kill_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
