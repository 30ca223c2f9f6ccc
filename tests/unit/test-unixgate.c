/* SPDX-License-Identifier: MIT */
/* Unit tests for the gate's pure parts (frontend/supervise/unixgate.c, unixgate-lookup.c): the
 * printable address of the report and the rewriting of the caller's /proc/self in a path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>
#include <cmocka.h>

#include "supervise/unixgate.h"

static socklen_t
mk(struct sockaddr_un *sa, const char *path, size_t n)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n);
	return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n);
}

static void
test_addr_str(void **state)
{
	struct sockaddr_un sa;
	char buf[112];
	socklen_t len;

	(void) state;
	len = mk(&sa, "/run/user/1000/bus", sizeof("/run/user/1000/bus"));
	ugate_addr_str(&sa, len, buf, sizeof(buf));
	assert_string_equal(buf, "/run/user/1000/bus");
	len = mk(&sa, "\0tmux\n\"x", 8);
	ugate_addr_str(&sa, len, buf, sizeof(buf));
	assert_string_equal(buf, "@tmux\\x0a\\x22x");
	/* A length that only covers the family: nothing, not the bytes after it. */
	ugate_addr_str(&sa, sizeof(sa_family_t), buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* A small buffer is filled, never overrun, and terminated. */
	len = mk(&sa, "/a/very/long/path", sizeof("/a/very/long/path"));
	ugate_addr_str(&sa, len, buf, 8);
	assert_true(strlen(buf) < 8);
}

static void
test_proc_self(void **state)
{
	struct sockaddr_un sa, out;
	socklen_t len, olen = 0;
	char longp[sizeof(sa.sun_path)];

	(void) state;
	len = mk(&sa, "/proc/self/fd/7/s.sock", sizeof("/proc/self/fd/7/s.sock"));
	assert_int_equal(ugate_proc_self(&sa, len, 4242, &out, &olen), 1);
	assert_string_equal(out.sun_path, "/proc/4242/fd/7/s.sock");
	assert_int_equal(olen, offsetof(struct sockaddr_un, sun_path) + strlen(out.sun_path) + 1);
	len = mk(&sa, "/proc/thread-self/cwd/x", sizeof("/proc/thread-self/cwd/x"));
	assert_int_equal(ugate_proc_self(&sa, len, 77, &out, &olen), 1);
	assert_string_equal(out.sun_path, "/proc/77/cwd/x");
	/* Without the terminating NUL in the length: the path is what the length covers. */
	len = mk(&sa, "/proc/self/cwd/ab", strlen("/proc/self/cwd/ab"));
	assert_int_equal(ugate_proc_self(&sa, len, 5, &out, &olen), 1);
	assert_string_equal(out.sun_path, "/proc/5/cwd/ab");
	/* Not the caller's: left alone. */
	len = mk(&sa, "/proc/selfish/x", sizeof("/proc/selfish/x"));
	assert_int_equal(ugate_proc_self(&sa, len, 5, &out, &olen), 0);
	len = mk(&sa, "proc/self/x", sizeof("proc/self/x"));
	assert_int_equal(ugate_proc_self(&sa, len, 5, &out, &olen), 0);
	len = mk(&sa, "\0/proc/self/x", sizeof("\0/proc/self/x"));
	assert_int_equal(ugate_proc_self(&sa, len, 5, &out, &olen), 0);
	/* Too long once rewritten. */
	memset(longp, 'a', sizeof(longp));
	memcpy(longp, "/proc/self/", 11);
	len = mk(&sa, longp, sizeof(longp));
	assert_int_equal(ugate_proc_self(&sa, len, 1234567, &out, &olen), -ENAMETOOLONG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_str),
		cmocka_unit_test(test_proc_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
