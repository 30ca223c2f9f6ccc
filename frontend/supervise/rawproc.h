/* SPDX-License-Identifier: MIT */
/* System calls and the process-tree kill for rlimit mode's keeper (keeper.h), written so that
 * they touch nothing of the C library: no errno, no lock, no allocation, no static state.
 *
 * On x86-64 the keeper shares its memory with the supervisor (keeper.c), which goes on
 * using the C library meanwhile, with the same thread pointer: errno, malloc's arena and
 * stdio's buffers are the supervisor's, and the supervisor may be killed in the middle of
 * any of them.  Everything the keeper runs after the split is therefore here: raw system
 * calls returning -errno, fixed buffers on the keeper's own stack, and parsers of /proc
 * text that keep their state in their arguments (unit-tested: test-rawproc.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A system call without errno: the result, or -errno. */
long rawsys(long nr, long a, long b, long c, long d, long e);

/* The pids of a /proc/.../children text, fed in pieces of any size: a number cut at the end
 * of one piece is finished by the next.  Pids go to out (at most max, the rest dropped:
 * the caller's next round finds them); returns how many out holds. */
struct rawpids {
	pid_t *out;
	size_t n, max;
	long cur; /* the digits read so far of a number cut short, -1: none */
};
void rawpids_feed(struct rawpids *p, const char *buf, size_t len);
void rawpids_end(struct rawpids *p);

/* The parent pid in the text of /proc/PID/stat (fields counted from the name's last ")"),
 * -1 when the text does not have it. */
pid_t rawproc_stat_ppid(const char *buf, size_t len);

/* Write v as decimal digits into buf (at least 21 bytes), NUL-terminated; returns the end
 * (the NUL).  By hand, not snprintf(): the keeper may not touch the C library's state
 * (errno, locale) that the supervisor shares with it, see above. */
char *rawfmt_u(char *buf, unsigned long v);

/* Append the children of every thread of pid to pv[n..max) (pid to par[] beside each),
 * through /proc/PID/task and each task's children file; returns the new count. */
size_t rawproc_children(pid_t pid, pid_t *pv, pid_t *par, size_t n, size_t max);

/* Kill (SIGKILL) every descendant of this process, self: its pid, and reap them, round by
 * round, until it has no child left.  Each round kills the children of self and, pinned
 * by a pidfd and checked to still have the parent they were found under, their
 * descendants; what is orphaned meanwhile comes to self (a subreaper) for the next round.
 * Returns how many processes were killed. */
unsigned rawproc_kill_tree(pid_t self);
