/* SPDX-License-Identifier: MIT */
/*
 * Contract: SPAWN, the sandbox's first process (PROTOCOL.md 3.3).  No process is moved into
 * the leaf by its number, which a reaped process gives up for reuse: the helper creates the
 * process in the leaf (clone3 CLONE_INTO_CGROUP, through the leaf's fd this session made and
 * holds), as a child of sandcap (CLONE_PARENT: the helper's parent, proven at HELLO to be
 * the caller), and that process gives up every capability before anything else
 * (caps_drop_all()), closes everything of the helper's but the one socket the request
 * carried, and only then reads sandcap's stage from it (lib/stage.c, the caller's own
 * code and data from here on).  Trusts nothing in the request: its one fd is only checked
 * to be a unix socket and handed to the new process.  Capabilities: CAP_DAC_OVERRIDE for
 * the clone3 (priv_clone_into_cgroup()).
 */
#include <errno.h>
#include <stdint.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "deadline-record.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "session.h"
#include "stage.h"
#include "time-util.h"

mode_t caller_umask = 077;

/* The new process: nothing of the helper's survives past its first two steps. */
static _noreturn_ void
spawned(int sock)
{
	/* First: no capability, for good.  Until here it ran only the return of clone3 and the
	 * lowering of the effective set, with every signal blocked (spawn_in_leaf()), so no
	 * handler of the helper's ran in it. */
	if (caps_drop_all() < 0)
		_exit(STAGE_EXIT_FAILURE);
	/* None of the helper's descriptors (session socket, leaf, cgroup.kill, locks, policy
	 * dirs): only the stage socket stays open, and fds 0-2, the helper's (sandcap gave
	 * them; main.c made sure they are open), until the stage replaces them: so the fds
	 * the stage brings land above 2, where nothing needs moving. */
	if ((sock > 3 && close_range(3, (unsigned) sock - 1, 0) < 0) ||
	    close_range((unsigned) sock + 1, ~0U, 0) < 0)
		_exit(STAGE_EXIT_FAILURE);
	(void) umask(caller_umask);
	/* The helper's dispositions are all default (main.c's scrub_process()) but SIGALRM,
	 * which the per-user lock's bounded wait may have caught (user_lock()). */
	stage_spawned(sock, (uint64_t) 1 << (SIGALRM - 1));
}

/* clone3 into the leaf, as a sibling of the helper: the new pid, or -errno. */
static pid_t
spawn_in_leaf(struct session *s, int sock)
{
	struct clone_args ca = {
		.flags = CLONE_INTO_CGROUP | CLONE_PARENT,
		.cgroup = (uint64_t) s->leaf_fd,
		.exit_signal = 0, /* CLONE_PARENT: the helper's own, SIGCHLD to sandcap */
	};
	/* Every signal, the two glibc's sigprocmask() keeps for itself (32, 33) too: the raw
	 * system call.  SIGKILL and SIGSTOP the kernel never blocks. */
	uint64_t all = ~(uint64_t) 0, old = 0;
	pid_t pid;

	(void) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all));
	pid = priv_clone_into_cgroup(&ca);
	if (pid == 0)
		spawned(sock);
	(void) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	return pid;
}

int
op_spawn(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body, char *msg,
	 size_t msglen)
{
	int domain = 0;
	socklen_t len = sizeof(domain);
	pid_t pid;

	if (wire_get_end(rd) < 0)
		return -EBADMSG;
	/* A socket option, not fstat(): nothing that reaches a file system (a FUSE server
	 * could stall a stat).  Anything else is a protocol violation, not a refusal: the
	 * session is torn down before the fd is ever closed, as closing a file can wait on
	 * its file system (a FUSE server's flush) for as long as the user likes. */
	if (getsockopt(fds[0], SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_UNIX)
		return -EBADMSG;
	/* CLONE_PARENT gives the process to our parent: still sandcap, the peer of HELLO (a
	 * client that died meanwhile would leave it to whoever reaped us). */
	if (getppid() != s->peer_pid)
		return refuse(msg, msglen, -EPERM, "sandcap (pid %d) is gone", (int) s->peer_pid);
	pid = spawn_in_leaf(s, fds[0]);
	if (pid < 0)
		return refuse(msg, msglen, pid == -ENOSYS || pid == -EINVAL ? -ENOTSUP : pid,
			      "cannot start the sandbox's process in %s: %s%s", s->id,
			      strerror(-pid),
			      pid == -ENOSYS || pid == -EINVAL
				      ? " (clone3 with CLONE_INTO_CGROUP needs Linux 5.7 or later)"
				      : "");
	s->attached = true;
	/* The helper's own kill if sandcap does not end it: past the timeout and the backstop. */
	if (s->eff.v[POLICY_TIMEOUT] > 0)
		s->backstop_ms = mono_ms() + s->eff.v[POLICY_TIMEOUT] + DEADLINE_BACKSTOP_MS;
	s->killed = false; /* a process is in it since the last KILL */
	wire_put_u32(body, (uint32_t) pid);
	log_info("uid %u: spawned pid %d in %s", (unsigned) s->uid, (int) pid, s->id);
	return 0;
}
