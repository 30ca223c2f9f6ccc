/* SPDX-License-Identifier: MIT */
/* frontend/supervise/output.c: the output cap's accounting, and a relay round trip through real pipes
 * (no privilege, no kernel feature beyond pipes and splice). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervise/output.h"

static void
test_allowance(void **state)
{
	(void) state;
	assert_int_equal(output_allowance(100, 0, 4096), 100);
	assert_int_equal(output_allowance(100, 60, 10), 10);
	assert_int_equal(output_allowance(100, 95, 10), 5);
	assert_int_equal(output_allowance(100, 100, 10), 0);
	assert_int_equal(output_allowance(100, 150, 10), 0);   /* never negative */
	assert_int_equal(output_allowance(UINT64_MAX, 0, 65536), 65536);
}

static void
test_cap_passed_only_with_more_waiting(void **state)
{
	(void) state;
	assert_false(output_cap_passed(100, 99, 5));    /* room left: pass 1 more first */
	assert_false(output_cap_passed(100, 100, 0));   /* exactly the limit, nothing more */
	assert_true(output_cap_passed(100, 100, 1));    /* one byte over */
	assert_true(output_cap_passed(100, 200, 1));
}

/* The relay between two pipes of our own, as sandcap's stdout: at most limit bytes go
 * through, and the cap is passed only when more was written. */
static void
relay_once(uint64_t limit, size_t write_n, uint64_t want_passed, bool want_cap, bool no_splice)
{
	struct output_relay r;
	char err[256], buf[4096], data[4096];
	int sink[2], saved = dup(STDOUT_FILENO), epfd = epoll_create1(EPOLL_CLOEXEC), capped = 0;
	ssize_t got = 0, n;

	assert_true(saved >= 0 && epfd >= 0);
	assert_int_equal(pipe2(sink, O_CLOEXEC), 0);
	assert_int_equal(dup2(sink[1], STDOUT_FILENO), STDOUT_FILENO);  /* our "stdout" */
	assert_int_equal(output_relay_open(&r, limit, err, sizeof(err)), 0);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(sink[1]);
	assert_int_equal(output_relay_watch(&r, epfd), 0);
	r.s[0].no_splice = no_splice;   /* as on an output without splice_write */
	memset(data, 'x', sizeof(data));
	assert_int_equal(write(r.child_fd[0], data, write_n), (ssize_t) write_n);
	output_relay_parent(&r);        /* the writer is done: EOF after the data */
	for (int i = 0; i < 100 && r.s[0].in >= 0; i++) {
		struct epoll_event ev[4];
		int k = epoll_wait(epfd, ev, 4, 1000);

		for (int j = 0; j < k; j++)
			if (output_relay_owns(&r, ev[j].data.fd))
				capped |= output_relay_event(&r, ev[j].data.fd, ev[j].events);
	}
	output_relay_drain(&r, 2000, (const int[2]) { -1, -1 });
	while ((n = read(sink[0], buf, sizeof(buf))) > 0)
		got += n;
	assert_int_equal(got, (ssize_t) want_passed);
	assert_int_equal(r.passed, want_passed);
	assert_int_equal(r.cap_passed, want_cap);
	assert_int_equal(capped != 0, want_cap);
	close(sink[0]);
	close(epfd);
}

static void
test_relay_under_at_and_over(void **state)
{
	(void) state;
	for (int rw = 0; rw < 2; rw++) {
		relay_once(100, 50, 50, false, rw);
		relay_once(100, 100, 100, false, rw);
		relay_once(100, 101, 100, true, rw);
		relay_once(10, 4000, 10, true, rw);
	}
}

/* An output that takes nothing until the deadline: what the command wrote within the cap
 * is counted as dropped, output_bytes only what the output took (no_splice: bytes read
 * into the buffer but never written are not counted as passed). */
static void
drain_gives_up(uint64_t limit, size_t write_n, bool no_splice)
{
	struct output_relay r;
	char err[256], data[4096];
	int sink[2], saved = dup(STDOUT_FILENO), cap, in_sink = 0;
	size_t left = write_n;

	assert_true(saved >= 0);
	assert_int_equal(pipe2(sink, O_CLOEXEC | O_NONBLOCK), 0);
	cap = fcntl(sink[1], F_SETPIPE_SZ, 4096);       /* a small output that fills */
	assert_true(cap >= 4096);
	assert_int_equal(dup2(sink[1], STDOUT_FILENO), STDOUT_FILENO);
	assert_int_equal(output_relay_open(&r, limit, err, sizeof(err)), 0);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(sink[1]);
	r.s[0].no_splice = no_splice;
	memset(data, 'y', sizeof(data));
	while (left > 0) {
		ssize_t n = write(r.child_fd[0], data, left < sizeof(data) ? left : sizeof(data));

		assert_true(n > 0);
		left -= (size_t) n;
	}
	output_relay_parent(&r);
	output_relay_drain(&r, 300, (const int[2]) { -1, -1 });
	assert_int_equal(ioctl(sink[0], FIONREAD, &in_sink), 0);
	assert_true(in_sink > 0 && (uint64_t) in_sink < write_n);
	assert_int_equal(r.passed, (uint64_t) in_sink);
	assert_int_equal(r.passed + r.dropped, write_n < limit ? write_n : limit);
	assert_int_equal(r.cap_passed, write_n > limit);
	close(sink[0]);
}

static void
test_drain_gives_up_and_counts(void **state)
{
	(void) state;
	for (int rw = 0; rw < 2; rw++) {
		drain_gives_up(1 << 20, 40000, rw);     /* under the cap: all of the rest dropped */
		drain_gives_up(20000, 40000, rw);       /* over it: the cap's rest dropped, cap passed */
	}
}

/* A write end held outside the sandbox (a process that escaped it): the drain passes on
 * what the pipe held when it began and returns, with no deadline, without waiting for an
 * EOF that would never come. */
static void
test_drain_ignores_escaped_writer(void **state)
{
	struct output_relay r;
	char err[256], data[1000], buf[4096];
	int sink[2], saved = dup(STDOUT_FILENO), escaped;
	ssize_t n, got = 0;

	(void) state;
	assert_true(saved >= 0);
	assert_int_equal(pipe2(sink, O_CLOEXEC), 0);
	assert_int_equal(dup2(sink[1], STDOUT_FILENO), STDOUT_FILENO);
	assert_int_equal(output_relay_open(&r, 1 << 20, err, sizeof(err)), 0);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(sink[1]);
	memset(data, 'z', sizeof(data));
	assert_int_equal(write(r.child_fd[0], data, sizeof(data)), (ssize_t) sizeof(data));
	escaped = dup(r.child_fd[0]);
	assert_true(escaped >= 0);
	output_relay_parent(&r);
	alarm(20);              /* a hang is a failure */
	output_relay_drain(&r, -1, (const int[2]) { -1, -1 });
	alarm(0);
	while ((n = read(sink[0], buf, sizeof(buf))) > 0)
		got += n;
	assert_int_equal(got, (ssize_t) sizeof(data));
	assert_int_equal(r.passed, sizeof(data));
	assert_int_equal(r.dropped, 0);
	close(escaped);
	close(sink[0]);
}

/* Without kcmp(2): one description of a regular file is told from two opens of it by a
 * shared status flag; its offset and flags are as they were afterwards. */
static void
test_share_one_description(void **state)
{
	char path[] = "/tmp/sandcap-test-output.XXXXXX";
	int a = mkstemp(path), b, c;

	(void) state;
	assert_true(a >= 0);
	assert_int_equal(write(a, "hello", 5), 5);
	b = dup(a);
	c = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(b >= 0 && c >= 0);
	assert_int_equal(lseek(c, 5, SEEK_SET), 5);    /* the same offset, another description */
	assert_true(output_share_one_description(a, b));
	assert_false(output_share_one_description(a, c));
	assert_int_equal(lseek(a, 0, SEEK_CUR), 5);
	assert_int_equal(lseek(c, 0, SEEK_CUR), 5);
	assert_int_equal(fcntl(a, F_GETFL) & O_NONBLOCK, 0);
	close(a);
	close(b);
	close(c);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowance),
		cmocka_unit_test(test_cap_passed_only_with_more_waiting),
		cmocka_unit_test(test_relay_under_at_and_over),
		cmocka_unit_test(test_drain_gives_up_and_counts),
		cmocka_unit_test(test_drain_ignores_escaped_writer),
		cmocka_unit_test(test_share_one_description),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
