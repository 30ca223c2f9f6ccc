/* SPDX-License-Identifier: MIT */
/* rlimit mode's second supervisor: SIGKILL of `sandcap` leaves no process of
 * the sandbox alive.
 *
 * In cgroup mode the helper does this (EOF on its socket: cgroup.kill).  In rlimit mode
 * nothing else would: the main process dies of its PR_SET_PDEATHSIG, but every other
 * descendant (setsid'd, double-forked, or simply in the command's group) would be
 * reparented to init and run on.  So `sandcap run` splits in two before the command starts:
 *
 *   the keeper (the original process, the pid the caller knows and kills)
 *     - is a child subreaper, so whatever is orphaned below it is reparented to it;
 *     - forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to the supervisor; stops when the
 *       supervisor stops for job control and continues it when continued;
 *     - exits with the supervisor's status; if the supervisor dies of a signal (SIGKILL),
 *       kills and reaps every process left below it, removes the run's control socket
 *       and says so;
 *   the supervisor (its child, in a process group of its own, so that signals sent to the
 *   caller's job reach it once, through the keeper)
 *     - does everything `sandcap run` does (supervise.c), and is a subreaper too;
 *     - watches the keeper through a pidfd: if the keeper dies (SIGKILL of the pid the
 *       caller knows), it kills the whole sandbox at once and ends as usual.
 * Either of the two, killed, leaves the other to kill the tree; the sandbox cannot signal
 * either (protect.h).  Both are non-dumpable.
 *
 * On x86-64 the split is a clone(CLONE_VM), not a fork (perf): the two share sandcap's
 * memory, the supervisor goes on along sandcap's stack, the keeper moves to a stack of its
 * own and from then on runs only rawproc.h's code (no errno, no allocation, no lock), since
 * the supervisor keeps using the C library meanwhile and may die inside any of it.
 * Elsewhere, with a CET shadow stack, or under AddressSanitizer, it is a fork running the
 * same keeper code. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct keeper_info {
	pid_t keeper;     /* the keeper's pid (the supervisor's parent) */
	int keeper_pidfd; /* pidfd of the keeper, readable when it has died */
	pid_t home_pgrp;  /* the caller's process group (the keeper's), for the terminal */
};

/* Split.  Returns 0 in the supervisor with *ret filled, -errno (nothing forked, or the
 * keeper already gone) on failure.  In the keeper it never returns: it exits with the
 * supervisor's status.  ctl_path (copied; "" for none): the control socket the supervisor
 * will make (control_path()), which the keeper removes if the supervisor is killed. */
int keeper_start(struct keeper_info *ret, const char *ctl_path);
