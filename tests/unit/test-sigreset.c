/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/sigreset.c: the /proc/PID/status mask parser, and that the reset
 * leaves no ignored or caught signal behind while touching only those. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sigreset.h"

static const char status[] =
	"Name:\tcat\nState:\tR (running)\nSigQ:\t0/127\n"
	"SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
	"SigBlk:\t0000000000010000\nSigIgn:\t0000000000001004\n"
	"SigCgt:\t8000000000000002\nCapInh:\t0000000000000000\n";

static void
test_mask_parse(void **state)
{
	uint64_t m = 7;

	(void) state;
	assert_int_equal(sig_status_mask(status, "SigIgn", &m), 0);
	assert_true(m == 0x1004);       /* SIGQUIT (3) and SIGPIPE (13) */
	assert_int_equal(sig_status_mask(status, "SigCgt", &m), 0);
	assert_true(m == UINT64_C(0x8000000000000002));
	assert_int_equal(sig_status_mask(status, "SigBlk", &m), 0);
	assert_true(m == 0x10000);
}

static void
test_mask_reject(void **state)
{
	uint64_t m = 7;

	(void) state;
	assert_int_equal(sig_status_mask(status, "SigXyz", &m), -ENOENT);
	assert_int_equal(sig_status_mask("Sig:\t0\n", "SigIgn", &m), -ENOENT);
	/* a prefix of another key is not that key */
	assert_int_equal(sig_status_mask("SigIgnX:\t0000000000000001\n", "SigIgn", &m), -ENOENT);
	assert_int_equal(sig_status_mask("SigIgn:\t000000000000001\n", "SigIgn", &m), -EBADMSG);
	assert_int_equal(sig_status_mask("SigIgn:\t00000000000000011\n", "SigIgn", &m),
			 -EBADMSG);
	assert_int_equal(sig_status_mask("SigIgn:\t000000000000000G\n", "SigIgn", &m), -EBADMSG);
	/* cut off by a short read: no newline after the digits */
	assert_int_equal(sig_status_mask("SigIgn:\t0000000000000001", "SigIgn", &m), -EBADMSG);
	assert_true(m == 7);
}

static void
on_usr1(int sig)
{
	(void) sig;
}

static void
test_reset(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	int n;

	(void) state;
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	assert_ptr_not_equal(signal(SIGPIPE, SIG_IGN), SIG_ERR);
	assert_ptr_not_equal(signal(SIGHUP, SIG_IGN), SIG_ERR);
	n = sig_reset_dispositions();
	/* Exactly the three we changed, unless cmocka itself set some (it catches a few
	 * fatal signals): at least three, and far fewer than all. */
	assert_true(n >= 3 && n < 20);
	assert_int_equal(sigaction(SIGUSR1, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	assert_int_equal(sigaction(SIGPIPE, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	assert_int_equal(sigaction(SIGHUP, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	/* Nothing left to do but libc's own two (SIGCANCEL, SIGSETXID), which sigaction()
	 * refuses to touch and a test runner may have inherited as ignored. */
	assert_true(sig_reset_dispositions() <= 2);
}

/* The kernel's own view, for comparison: SigIgn and SigCgt of /proc/self/status. */
static void
proc_masks(uint64_t *ign, uint64_t *cgt)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(sig_status_mask(buf, "SigIgn", ign), 0);
	assert_int_equal(sig_status_mask(buf, "SigCgt", cgt), 0);
}

/* sig_nondefault() asks signal by signal (issue 19); its answer is the kernel's, libc's own
 * two included: ignored, caught (with SA_SIGINFO too) and default, as /proc/self/status
 * reports them. */
static void
test_nondefault_is_kernels(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, si = { .sa_flags = SA_SIGINFO };
	unsigned long ign_act[8] = { (unsigned long) SIG_IGN }, dfl_act[8] = { 0 };
	uint64_t ign, todo, kign, kcgt;

	(void) state;
	todo = sig_nondefault(&ign);
	proc_masks(&kign, &kcgt);
	assert_true(todo == (kign | kcgt));
	assert_true(ign == (kign | (kcgt & (UINT64_C(3) << 31))));

	si.sa_sigaction = (void (*)(int, siginfo_t *, void *)) (void (*)(void)) on_usr1;
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	assert_int_equal(sigaction(SIGWINCH, &si, NULL), 0);
	assert_ptr_not_equal(signal(SIGPIPE, SIG_IGN), SIG_ERR);
	assert_ptr_not_equal(signal(SIGRTMAX, SIG_IGN), SIG_ERR);
	/* SIGSETXID (33) ignored, as GNU make passes it on: sigaction() refuses it. */
	assert_int_equal(syscall(SYS_rt_sigaction, 33, ign_act, NULL, (size_t) 8), 0);
	todo = sig_nondefault(&ign);
	proc_masks(&kign, &kcgt);
	assert_true(todo == (kign | kcgt));
	assert_true(ign == (kign | (kcgt & (UINT64_C(3) << 31))));
	assert_true(todo & (UINT64_C(1) << (SIGUSR1 - 1)));
	assert_true(todo & (UINT64_C(1) << (SIGWINCH - 1)));
	assert_false(ign & (UINT64_C(1) << (SIGWINCH - 1)));
	assert_true(ign & (UINT64_C(1) << (SIGPIPE - 1)));
	assert_true(ign & (UINT64_C(1) << (SIGRTMAX - 1)));
	assert_true(ign & (UINT64_C(1) << (33 - 1)));

	/* Reset in a child from the parent's answer: nothing left, as the kernel says. */
	pid_t pid = fork();

	if (pid == 0) {
		uint64_t i2, c2;

		(void) sig_reset_these(todo, ign);
		proc_masks(&i2, &c2);
		_exit(i2 == 0 && (c2 & ~(UINT64_C(3) << 31)) == 0 ? 0 : 1);
	}
	int wstatus;

	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	(void) syscall(SYS_rt_sigaction, 33, dfl_act, NULL, (size_t) 8);
	(void) signal(SIGUSR1, SIG_DFL);
	(void) signal(SIGWINCH, SIG_DFL);
	(void) signal(SIGPIPE, SIG_DFL);
	(void) signal(SIGRTMAX, SIG_DFL);
	todo = sig_nondefault(&ign);
	assert_false(todo & (UINT64_C(1) << (33 - 1)));
	assert_false(todo & (UINT64_C(1) << (SIGWINCH - 1)));
}

/* sig_nondefault() in a parent, sig_reset_these() in its forked child (issue 19): the
 * child resets what the parent had set, which it inherited. */
static void
test_reset_in_child(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t ign, todo;
	int wstatus;
	pid_t pid;

	(void) state;
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	assert_ptr_not_equal(signal(SIGTERM, SIG_IGN), SIG_ERR);
	todo = sig_nondefault(&ign);
	assert_true(todo & (UINT64_C(1) << (SIGUSR2 - 1)));
	assert_true(todo & (UINT64_C(1) << (SIGTERM - 1)));
	assert_true(ign & (UINT64_C(1) << (SIGTERM - 1)));
	assert_false(ign & (UINT64_C(1) << (SIGUSR2 - 1)));
	pid = fork();
	if (pid == 0) {
		struct sigaction a, b;

		/* Inherited as set, until the reset. */
		if (sigaction(SIGUSR2, NULL, &a) < 0 || a.sa_handler != on_usr1)
			_exit(1);
		(void) sig_reset_these(todo, ign);
		if (sigaction(SIGUSR2, NULL, &a) < 0 || sigaction(SIGTERM, NULL, &b) < 0)
			_exit(2);
		_exit(a.sa_handler == SIG_DFL && b.sa_handler == SIG_DFL ? 0 : 3);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	(void) signal(SIGUSR2, SIG_DFL);
	(void) signal(SIGTERM, SIG_DFL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mask_parse),
		cmocka_unit_test(test_mask_reject),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_reset_in_child),
		cmocka_unit_test(test_nondefault_is_kernels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
