/* SPDX-License-Identifier: MIT */
/* rlimit mode's keeper; see keeper.h. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit.h"
#include "supervise/control.h"
#include "supervise/keeper.h"
#include "macro.h"
#include "supervise/rawproc.h"
#include "supervise/supervise.h"

/* What the keeper needs after the split, copied where the supervisor never writes: the
 * top of the keeper's own stack (shared memory), or the keeper's own copy (fork). */
struct keeper_arg {
	pid_t self;
	uid_t uid;
	int sigfd;
	uint64_t mask;                   /* the kernel's signal mask for the keeper (64 signals) */
	char ctl_path[CONTROL_PATH_MAX]; /* the control socket, or "" */
};

static void
say(const char *s)
{
	size_t len = strlen(s);

	while (len > 0) {
		long n = rawsys(SYS_write, STDERR_FILENO, (long) s, (long) len, 0, 0);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t) n;
	}
}

static _noreturn_ void
keeper_exit(int code)
{
	for (;;)
		(void) rawsys(SYS_exit_group, code, 0, 0, 0, 0);
}

/* A signal for the supervisor: SIGCONT is the shell's (fg), the others ask for the end.
 * The original sender rides along (uid << 32 | pid), so that the report names who asked,
 * not the keeper (keeper_sender()). */
static void
forward(const struct keeper_arg *a, pid_t sup, const struct signalfd_siginfo *si)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = (int) si->ssi_signo;
	info.si_code = SI_QUEUE;
	info.si_pid = a->self;
	info.si_uid = a->uid;
	info.si_value.sival_ptr =
		(void *) (uintptr_t) (((uint64_t) si->ssi_uid << 32) | (uint32_t) si->ssi_pid);
	if (rawsys(SYS_rt_sigqueueinfo, sup, (long) si->ssi_signo, (long) &info, 0, 0) < 0)
		(void) rawsys(SYS_kill, sup, (long) si->ssi_signo, 0, 0, 0);
}

/* Reap what SIGCHLD announced.  True once the supervisor has ended (*status). */
static bool
reap(const struct keeper_arg *a, pid_t sup, int *status)
{
	for (;;) {
		int st = 0;
		long w = rawsys(SYS_wait4, -1, (long) &st, WNOHANG | WUNTRACED | __WALL, 0, 0);

		if (w == -EINTR)
			continue;
		if (w <= 0)
			return false;
		if (w != sup)
			continue; /* an orphan of the sandbox: reaped */
		if (WIFSTOPPED(st)) {
			/* Job control: the supervisor stopped with the command; stop too, so
			 * the caller's shell sees the job stopped. */
			(void) rawsys(SYS_kill, a->self, SIGSTOP, 0, 0, 0);
			(void) rawsys(SYS_kill, sup, SIGCONT, 0, 0, 0);
			continue;
		}
		*status = st;
		return true;
	}
}

static _noreturn_ void
keeper_main(const struct keeper_arg *a, pid_t sup)
{
	int status = 0;
	bool done = false;

	/* Signals as they were before the split, plus the forwarded ones (read through sigfd). */
	(void) rawsys(SYS_rt_sigprocmask, SIG_SETMASK, (long) &a->mask, 0, 8, 0);
	/* The keeper holds nothing of the run: a pipe or socket end kept here would hide the
	 * supervisor's close from its peer (the proxy's stop pipe, the helper's socket).  Only
	 * the terminal's 0-2 and its signalfd stay. */
	if (a->sigfd > 3)
		(void) rawsys(SYS_close_range, 3, a->sigfd - 1, 0, 0, 0);
	(void) rawsys(SYS_close_range, a->sigfd + 1, ~0U, 0, 0, 0);
	while (!done) {
		struct signalfd_siginfo si;
		struct pollfd p = { .fd = a->sigfd, .events = POLLIN };
		long r = rawsys(SYS_ppoll, (long) &p, 1, 0, 0, 0);

		if (r < 0 && r != -EINTR)
			break;
		while (!done && rawsys(SYS_read, a->sigfd, (long) &si, sizeof(si), 0, 0) ==
					(long) sizeof(si)) {
			if (si.ssi_signo != SIGCHLD)
				forward(a, sup, &si);
			else
				done = reap(a, sup, &status);
		}
	}
	if (!done) {
		/* Cannot wait any more: end the supervisor rather than leave it unwatched. */
		(void) rawsys(SYS_kill, sup, SIGKILL, 0, 0, 0);
		while (rawsys(SYS_wait4, sup, (long) &status, __WALL, 0, 0) == -EINTR)
			;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		unsigned n = rawproc_kill_tree(a->self);

		/* Nobody listens on it any more (the supervisor's end closed with it). */
		if (a->ctl_path[0] != '\0')
			(void) rawsys(SYS_unlink, (long) a->ctl_path, 0, 0, 0, 0);
		const char *abbrev = sigabbrev_np(sig);
		char num[24];

		say("sandcap: the supervisor (pid ");
		(void) rawfmt_u(num, (unsigned long) sup);
		say(num);
		say(") was killed by SIG");
		say(abbrev != NULL ? abbrev : "?");
		say("; the keeper killed the ");
		(void) rawfmt_u(num, n);
		say(num);
		say(n == 1 ? " process left in the sandbox\n" : " processes left in the sandbox\n");
		keeper_exit(128 + sig);
	}
	(void) rawproc_kill_tree(a->self); /* normally nothing: the supervisor reaped it all */
	keeper_exit(WIFEXITED(status) ? WEXITSTATUS(status) : SC_EXIT_FAILURE);
}

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define KEEPER_STACK (64 * 1024)

/* Is a shadow stack (CET) on?  A clone sharing memory gets a new, empty one and could not
 * return from the functions it was called in: such a process forks instead. */
static bool
shadow_stack_on(void)
{
	unsigned long features = 0;

	/* ARCH_SHSTK_STATUS; older kernels know no such request (-EINVAL): none. */
	return rawsys(SYS_arch_prctl, 0x5005, (long) &features, 0, 0, 0) == 0 &&
	       (features & 1) != 0;
}

/* clone(CLONE_VM) where the parent, not the child, leaves the stack: the child returns
 * along it as fork()'s child would; the parent, the keeper, moves at once onto its own
 * stack at sp and never comes back.  All signals are blocked (a handler's frame would land
 * on the shared stack), and nothing is pushed between the system call and the move.
 * Returns 0 in the child, -errno in the parent when there is no child. */
static long
clone_vm_leave_stack(void *sp, const struct keeper_arg *a)
{
	long ret;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	register void *r12 __asm__("r12") = sp;
	register const struct keeper_arg *r13 __asm__("r13") = a;
	register void (*r14)(const struct keeper_arg *, pid_t) __asm__("r14") = keeper_main;

	__asm__ volatile("syscall\n\t"
			 "testq %%rax, %%rax\n\t"
			 "jle 1f\n\t"
			 "movq %%r12, %%rsp\n\t"
			 "movq %%r13, %%rdi\n\t"
			 "movq %%rax, %%rsi\n\t"
			 "callq *%%r14\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"((long) SYS_clone), "D"((long) (CLONE_VM | SIGCHLD)), "S"(0L),
			   "d"(0L), "r"(r10), "r"(r8), "r"(r12), "r"(r13), "r"(r14)
			 : "rcx", "r11", "memory");
	return ret;
}

/* perf: the split without a copy of our memory (a fork's page-table copy and the
 * copy-on-write faults after it were a large share of rlimit mode's start-up).  Returns
 * 0 in the supervisor, -errno when it cannot be done this way (then fork). */
static long
split_shared(const struct keeper_arg *a)
{
	struct keeper_arg *top;
	sigset_t all, prev;
	char *stack;
	long r;

	if (shadow_stack_on())
		return -EOPNOTSUPP;
	/* The keeper's stack, with a guard page below; never unmapped (the keeper lives on
	 * it until it exits; the supervisor never touches it). */
	stack = mmap(NULL, KEEPER_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	if (mprotect(stack, 4096, PROT_NONE) < 0) {
		r = -errno;
		(void) munmap(stack, KEEPER_STACK);
		return r;
	}
	top = (struct keeper_arg *) (stack + KEEPER_STACK) - 1;
	*top = *a;
	sigfillset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, &prev);
	r = clone_vm_leave_stack((void *) ((uintptr_t) top & ~(uintptr_t) 15), top);
	/* Only the supervisor (0), or this process with no child (< 0), is here. */
	(void) sigprocmask(SIG_SETMASK, &prev, NULL);
	if (r < 0)
		(void) munmap(stack, KEEPER_STACK);
	return r;
}
#else
static long
split_shared(const struct keeper_arg *a)
{
	(void) a;
	return -EOPNOTSUPP;
}
#endif

/* Fork: the keeper gets a copy of our memory. */
static long
split_fork(const struct keeper_arg *a)
{
	pid_t sup;

	(void) fflush(stdout);
	(void) fflush(stderr);
	sup = fork();
	if (sup < 0)
		return -errno;
	if (sup > 0)
		keeper_main(a, sup);
	return 0;
}

int
keeper_start(struct keeper_info *ret, const char *ctl_path)
{
	sigset_t set, old, kmask;
	struct keeper_arg a;
	int sigfd;
	long r;
	pid_t keeper = getpid(), home = getpgrp();

	/* What the supervisor itself handles: passed on to it. */
	sv_forwarded_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		return -errno;
	kmask = old;
	for (int s = 1; s < 64; s++)
		if (sigismember(&set, s) == 1)
			(void) sigaddset(&kmask, s);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		r = -errno;
		(void) sigprocmask(SIG_SETMASK, &old, NULL);
		return (int) r;
	}
	a = (struct keeper_arg){ .self = keeper, .uid = getuid(), .sigfd = sigfd };
	(void) strlcpy(a.ctl_path, ctl_path, sizeof(a.ctl_path));
	memcpy(&a.mask, &kmask, sizeof(a.mask)); /* glibc's sigset_t begins with it */
	r = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
	if (r == 0) {
		r = split_shared(&a);
		if (r == -EOPNOTSUPP || r == -ENOMEM)
			r = split_fork(&a);
	}
	if (r < 0) {
		(void) close(sigfd);
		(void) prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		(void) sigprocmask(SIG_SETMASK, &old, NULL);
		return (int) r;
	}

	/* The supervisor.  The signals the keeper passes on stay blocked (sv_setup_signals()
	 * blocks them again, and its signalfd reads what came meanwhile): unblocked in
	 * between, one passed on in the first milliseconds would kill the supervisor before
	 * it wrote a report. */
	(void) close(sigfd);
	/* Its own process group: a signal to the caller's job reaches the keeper, which passes
	 * it on once (both would get it otherwise, and the command twice). */
	(void) setpgid(0, 0);
	ret->keeper_pidfd = (int) pidfd_open(keeper, 0);
	if (ret->keeper_pidfd < 0)
		return -errno;
	/* The keeper may have died before the pidfd existed: then our parent is someone else. */
	if (getppid() != keeper) {
		(void) close(ret->keeper_pidfd);
		return -ESRCH;
	}
	ret->keeper = keeper;
	ret->home_pgrp = home;
	return 0;
}
