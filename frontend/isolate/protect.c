/* SPDX-License-Identifier: MIT */
/* seccomp rules that keep the sandbox off its supervisors; see protect.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "macro.h"
#include "isolate/protect.h"

void
protect_add(struct protect_pids *set, pid_t p)
{
	if (p <= 0 || set->n >= PROTECT_PIDS_MAX)
		return;
	for (size_t i = 0; i < set->n; i++)
		if (set->pid[i] == p)
			return;
	set->pid[set->n++] = p;
}

/* One rule; a system call this architecture lacks needs none. */
static int
deny(scmp_filter_ctx ctx, int err, const char *name, unsigned n, const struct scmp_arg_cmp *a)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR || nr < 0)
		return 0;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n, a);
}

/* pid_t arguments are 32-bit: the kernel ignores the upper half of the register, so
 * compare the lower 32 bits only, or a pid with junk above them would pass the filter and
 * still reach the kernel (as the ioctl rules of isolate.c). */
static struct scmp_arg_cmp
arg_is(unsigned arg, int32_t v)
{
	return (struct scmp_arg_cmp){ .arg = arg,
				      .op = SCMP_CMP_MASKED_EQ,
				      .datum_a = 0xffffffffu,
				      .datum_b = (uint32_t) v };
}

static int
deny_arg(scmp_filter_ctx ctx, const char *name, unsigned arg, int32_t v)
{
	struct scmp_arg_cmp a = arg_is(arg, v);

	return deny(ctx, EPERM, name, 1, &a);
}

int
protect_seccomp_rules(void *ctx_, const struct protect_pids *set, bool landlock_signal)
{
	scmp_filter_ctx ctx = ctx_;
	/* System calls whose argument N names a process (or thread) to act on. */
	static const struct {
		const char *name;
		unsigned arg;
	} by_pid[] = {
		{ "kill", 0 },
		{ "tkill", 0 },
		{ "tgkill", 0 },
		{ "tgkill", 1 },
		{ "rt_sigqueueinfo", 0 },
		{ "rt_tgsigqueueinfo", 0 },
		{ "rt_tgsigqueueinfo", 1 },
		{ "pidfd_open", 0 },
		{ "ptrace", 1 },
		{ "process_vm_readv", 0 },
		{ "process_vm_writev", 0 },
		{ "prlimit64", 0 },
		{ "kcmp", 0 },
		{ "kcmp", 1 },
		{ "sched_setscheduler", 0 },
		{ "sched_setparam", 0 },
		{ "sched_setattr", 0 },
		{ "sched_setaffinity", 0 },
		{ "setpriority", 1 },
		{ "ioprio_set", 1 },
		{ "migrate_pages", 0 },
		{ "move_pages", 0 },
		{ "process_madvise", 0 },
		{ "process_mrelease", 0 },
		{ "get_robust_list", 0 },
	};
	int r = 0;

	for (size_t i = 0; r == 0 && i < set->n; i++) {
		pid_t p = set->pid[i];

		for (size_t k = 0; r == 0 && k < ELEMENTSOF(by_pid); k++)
			r = deny_arg(ctx, by_pid[k].name, by_pid[k].arg, p);
		/* A group of that number, and a SIGIO/SIGURG owner (F_SETSIG can make that
		 * signal SIGSTOP). */
		if (r == 0)
			r = deny_arg(ctx, "kill", 0, -p);
		if (r == 0) {
			struct scmp_arg_cmp a[] = { arg_is(1, F_SETOWN), arg_is(2, p) };

			r = deny(ctx, EPERM, "fcntl", 2, a);
			if (r == 0)
				r = deny(ctx, EPERM, "fcntl64", 2, a);
		}
		if (r == 0) {
			struct scmp_arg_cmp a[] = { arg_is(1, F_SETOWN), arg_is(2, -p) };

			r = deny(ctx, EPERM, "fcntl", 2, a);
			if (r == 0)
				r = deny(ctx, EPERM, "fcntl64", 2, a);
		}
	}
	/* Every process the caller may signal, and the supervisors' group (joining it, then
	 * kill(0), would reach it too). */
	if (r == 0)
		r = deny_arg(ctx, "kill", 0, -1);
	if (r == 0 && set->pgid > 0) {
		r = deny_arg(ctx, "kill", 0, -set->pgid);
		if (r == 0)
			r = deny_arg(ctx, "setpgid", 1, set->pgid);
		if (r == 0)
			r = deny_arg(ctx, "setpriority", 1, set->pgid);
		if (r == 0) {
			struct scmp_arg_cmp a[] = { arg_is(1, F_SETOWN), arg_is(2, -set->pgid) };

			r = deny(ctx, EPERM, "fcntl", 2, a);
			if (r == 0)
				r = deny(ctx, EPERM, "fcntl64", 2, a);
		}
	}
	/* Owner-setting calls whose target seccomp cannot read (behind a pointer). */
	if (r == 0) {
		struct scmp_arg_cmp a = arg_is(1, F_SETOWN_EX);

		r = deny(ctx, EPERM, "fcntl", 1, &a);
		if (r == 0)
			r = deny(ctx, EPERM, "fcntl64", 1, &a);
	}
	if (r == 0)
		r = deny_arg(ctx, "ioctl", 1, FIOSETOWN);
	if (r == 0)
		r = deny_arg(ctx, "ioctl", 1, SIOCSPGRP);
	/* A /proc/PID directory fd works as a pidfd here, and seccomp cannot see which process
	 * it names: without Landlock's signal scope, refuse the call (ENOSYS: callers fall
	 * back to kill(2), which the rules above check). */
	if (r == 0 && !landlock_signal)
		r = deny(ctx, ENOSYS, "pidfd_send_signal", 0, NULL);
	return r;
}
