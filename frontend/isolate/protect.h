/* SPDX-License-Identifier: MIT */
/* The sandbox cannot touch its supervisors (SECURITY.md, "Invariants against a hostile
 * sandbox").  sandcap, its helper and, in rlimit mode, the keeper (keeper.h) run with
 * the user's uid, so without more the sandboxed command could SIGSTOP or SIGKILL them,
 * ptrace them or lower their rlimits, and so escape --timeout.  Three layers, applied in the
 * sandboxed child just before exec (isolate_apply):
 *   - Landlock signal scoping (LANDLOCK_SCOPE_SIGNAL, ABI >= 6) on every run, whatever --net
 *     says: no signal from the sandbox reaches a process outside it;
 *   - seccomp rules, on every kernel with seccomp filters: the kill family (kill, tkill,
 *     tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo), pidfd_open, ptrace, process_vm_readv/
 *     writev, prlimit64, kcmp and the scheduling calls are refused (EPERM) when they name a
 *     supervisor's pid; kill(-1) and kill/setpgid naming a supervisor's process group are
 *     refused; F_SETOWN to a supervisor and the owner-setting calls that take a pointer
 *     (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP) are refused, since a SIGIO owner can be sent any
 *     signal (F_SETSIG); pidfd_send_signal is refused (ENOSYS, so libraries fall back to
 *     kill) unless Landlock scoping covers it, as a /proc/PID directory fd is a pidfd to it;
 *   - the supervisors themselves are not dumpable (PR_SET_DUMPABLE 0, set by sandcap), so
 *     /proc/PID/mem, /proc/PID/fd and ptrace need CAP_SYS_PTRACE whatever the kernel.
 * No PID namespace is used: the pids are the same in the sandbox. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROTECT_PIDS_MAX 4

struct protect_pids {
	pid_t pid[PROTECT_PIDS_MAX]; /* sandcap, the helper, the keeper */
	size_t n;
	pid_t pgid; /* the supervisors' process group (0: none) */
};

/* Add p to the set (ignores p <= 0 and duplicates). */
void protect_add(struct protect_pids *set, pid_t p);

/* Add the seccomp rules above for set to the filter ctx (a scmp_filter_ctx; void * keeps
 * <seccomp.h> out of this header).  landlock_signal: the Landlock domain scopes signals,
 * so pidfd_send_signal may stay.  Returns 0 or a negative libseccomp error. */
int protect_seccomp_rules(void *ctx, const struct protect_pids *set, bool landlock_signal);
