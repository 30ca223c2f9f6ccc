/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/supervise/tree.c's descendant scan (sv_signal_descendants()): every
 * child is found and signalled, exactly once, when the list of children is longer than any
 * one read of /proc/PID/task/TID/children (an 8 KiB read used to cut it short, and a pid
 * cut in two was signalled as it was); the members of the group sv_signal() already
 * killed are skipped, their children are not. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervise/supervise.h"

#define MAX_CHILDREN 4000
/* Well over the 8 KiB that one read used to take, and reached by MAX_CHILDREN children
 * even where every pid has four digits (a freshly booted host). */
#define LIST_BYTES 12288

static pid_t kids[MAX_CHILDREN];
static size_t nkids;

static void
kill_kids(void)
{
	for (size_t i = 0; i < nkids; i++)
		if (kids[i] > 0)
			(void) kill(kids[i], SIGKILL);
	for (size_t i = 0; i < nkids; i++)
		if (kids[i] > 0)
			(void) waitpid(kids[i], NULL, 0);
	nkids = 0;
}

/* Children that wait (and die with the test) until the text that lists them, "PID " each,
 * is LIST_BYTES long.  Returns 0, or the errno of a fork the host refused. */
static int
start_kids(void)
{
	size_t bytes = 0;

	while (bytes < LIST_BYTES && nkids < MAX_CHILDREN) {
		char num[16];
		pid_t p = fork();

		if (p < 0)
			return errno;
		if (p == 0) {
			(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() == 1)
				_exit(0);
			for (;;)
				pause();
		}
		kids[nkids++] = p;
		bytes += (size_t) snprintf(num, sizeof(num), "%d ", (int) p);
	}
	return bytes < LIST_BYTES ? ENOSPC : 0;
}

static void
test_signal_many_children(void **state)
{
	int e, n;

	(void) state;
	e = start_kids();
	if (e != 0) {
		kill_kids();
		printf("# SKIP cannot start enough children to list %d bytes: %s\n", LIST_BYTES,
		       strerror(e));
		skip();
	}
	n = sv_signal_descendants(SIGKILL, 0);
	/* Reap them (10 s at most: one left alive must fail the test, not hang it). */
	for (size_t i = 0, waited = 0; i < nkids; i++) {
		int st = 0;
		pid_t w;

		while ((w = waitpid(kids[i], &st, WNOHANG)) == 0 && waited < 1000) {
			usleep(10000);
			waited++;
		}
		assert_int_equal(w, kids[i]);
		kids[i] = 0;
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGKILL);
	}
	assert_int_equal(n, (int) nkids);
	nkids = 0;
}

static pid_t
idle_child(void)
{
	pid_t p = fork();

	if (p == 0) {
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		for (;;)
			pause();
	}
	return p;
}

/* 'Z' once a process has died (and is not reaped), its state letter otherwise. */
static char
proc_state(pid_t p)
{
	char path[64], buf[256], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) p);
	f = fopen(path, "re");
	if (f == NULL)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren != NULL && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/* sv_signal() kills the sandbox's process group with one kill(2) and then passes
 * that group to sv_signal_descendants(), which must not signal its members again (each
 * got SIGTERM twice) but must still walk their children: a and b are in group a and keep
 * running; c (the test's group) and f (a's child, in a group of its own) are signalled. */
static void
test_skip_group(void **state)
{
	int pfd[2];
	pid_t a, b, c, f = 0;
	int n;

	(void) state;
	assert_int_equal(pipe(pfd), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		close(pfd[0]);
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		(void) setpgid(0, 0);
		f = idle_child();
		(void) setpgid(f, f);   /* as f would itself: done before a reports it */
		if (write(pfd[1], &f, sizeof(f)) != (ssize_t) sizeof(f))
			_exit(1);
		for (;;)
			pause();
	}
	kids[nkids++] = a;
	close(pfd[1]);
	(void) setpgid(a, a);
	assert_int_equal(read(pfd[0], &f, sizeof(f)), (ssize_t) sizeof(f));
	close(pfd[0]);
	b = idle_child();
	assert_true(b > 0);
	kids[nkids++] = b;
	assert_int_equal(setpgid(b, a), 0);
	c = idle_child();
	assert_true(c > 0);
	kids[nkids++] = c;

	n = sv_signal_descendants(SIGKILL, a);
	assert_int_equal(n, 2);
	assert_int_equal(waitpid(c, NULL, 0), c);
	kids[nkids - 1] = 0;
	for (int i = 0; i < 1000 && proc_state(f) != 'Z'; i++)
		usleep(10000);
	assert_int_equal(proc_state(f), 'Z');
	assert_int_equal(waitpid(a, NULL, WNOHANG), 0);
	assert_int_equal(waitpid(b, NULL, WNOHANG), 0);
}

static int
teardown(void **state)
{
	(void) state;
	kill_kids();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_signal_many_children, teardown),
		cmocka_unit_test_teardown(test_skip_group, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
