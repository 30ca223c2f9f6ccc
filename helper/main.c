/* SPDX-License-Identifier: MIT */
/*
 * sandcap-helper: the privileged half of sandcap.  Started by sandcap with a SOCK_SEQPACKET socket on
 * fd 3; serves one session (docs/PROTOCOL.md) and exits.
 *
 * Contract: trusts nothing it inherits.  argv is never read (argc only checked),
 * the environment is cleared, fds other than 0-2 and 3 are closed, signal mask and
 * dispositions, umask and cwd are reset before anything else (interval timers are not:
 * scrub_process() says why).  It refuses to
 * work under no_new_privs, without its permitted capabilities, or outside the initial
 * user namespace.  Identity comes from SO_PEERCRED only.  Capabilities are used through
 * priv.c only, one system call at a time (SECURITY.md lists each).  Logging: privileged
 * actions, denials and protocol
 * violations go to syslog (LOG_AUTHPRIV, with peer uid/pid); refusals and protocol
 * violations are also written to stderr, which is the user's terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv.h"
#include "cgroup.h"
#include "deadline-record.h"
#include "log.h"
#include "macro.h"
#include "session.h"
#include "sigreset.h"
#include "time-util.h"
#include "wire.h"
#include "wire_io.h"

#define SOCK_FD 3
#define IDLE_MS (60 * 1000) /* before SPAWN; none after: a sandbox may run for hours */

/* How long poll() may wait: the idle deadline before SPAWN, the timeout backstop after. */
static int
wait_ms(const struct session *s)
{
	uint64_t now, end = s->backstop_ms;

	if (!s->attached)
		return IDLE_MS;
	if (end == 0)
		return -1;
	now = mono_ms();
	return now >= end ? 0 : (int) (end - now < INT32_MAX ? end - now : INT32_MAX);
}

/* The signals blocked for the helper's whole life go to mask (for its signalfd):
 * SIGTERM/SIGHUP end it, SIGINT/SIGQUIT are sandcap's to handle. */
static void
scrub_process(sigset_t *mask)
{
	/* In secure mode (file capabilities gained: AT_SECURE) the dynamic loader has already
	 * opened /dev/null on any of fds 0-2 that was closed (glibc __libc_check_standard_fds,
	 * aborting if it could not); otherwise we do it. */
	for (int fd = 0; fd < 3 && getauxval(AT_SECURE) == 0; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd) /* takes the lowest free fd */
			abort();
	if (close_range(SOCK_FD + 1, ~0U, 0) < 0)
		abort();
	if (clearenv() != 0)
		abort();
	/* Ignored signals survive exec (handlers cannot): reset what the kernel says is not
	 * default, or every signal if /proc/self/status cannot tell (lib/sigreset.c). */
	(void) sig_reset_dispositions();
	/* The inherited mask is replaced by ours at once. */
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGQUIT);
	if (sigprocmask(SIG_SETMASK, mask, NULL) < 0)
		abort();
	/* Interval timers survive exec, but are not reset: one the user left can only end
	 * the helper with its signal, which the user can do anyway with kill(2) (the
	 * helper's real uid is theirs), and every step fails closed.  ITIMER_REAL is
	 * the per-user lock's (flock_bounded() sets it before each wait). */
	caller_umask = umask(077);
	if (chdir("/") < 0)
		abort();
}

/* The initial user namespace has a fixed inode number (PROC_USER_INIT_INO, 0xEFFFFFFD in
 * include/linux/proc_ns.h, since 3.8): exact where an identity
 * uid_map is not (a child namespace may map every uid). */
static bool
in_initial_userns(void)
{
	char buf[32] = ""; /* readlink() does not terminate: the rest stays 0 */
	ssize_t n = readlink("/proc/self/ns/user", buf, sizeof(buf) - 1);

	return n > 0 && streq(buf, "user:[4026531837]");
}

/* Why the helper cannot work, or "" (refusals are sent at HELLO and written to stderr).
 * no_new_privs is refused even with capabilities (run as root): docs/kernel.md 4.  Limits
 * of the user's that a session cannot work under are refused with the fix, rather than
 * failing a later step less clearly (RLIMIT_FSIZE only matters to a deadline record:
 * deadline_record() checks it).  Only the soft limits are checked, and not raised: the
 * sandbox's first process inherits them.  One lowered later (prlimit(2)) only fails a step
 * closed: SECURITY.md, "What a user does to their own helper's process". */
static void
check_privilege(struct session *s)
{
	char missing[128];
	bool caps = caps_init(missing, sizeof(missing)) == 0;
	const char *why = NULL;
	struct rlimit rl;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
		why = "no_new_privs is set, so the kernel withheld the helper's file capabilities; "
		      "run sandcap outside NoNewPrivileges=/bubblewrap/docker --security-opt "
		      "no-new-privileges";
	else if (!in_initial_userns())
		why = "running inside a user namespace, where file capabilities do not count; run "
		      "sandcap on the host, outside containers and unshare -U";
	if (why != NULL)
		s->refusal = refuse(s->refusal_msg, sizeof(s->refusal_msg), EPERM, "%s", why);
	else if (!caps)
		s->refusal = refuse(
			s->refusal_msg, sizeof(s->refusal_msg), EPERM,
			"missing permitted capabilities:%s (under ptrace, on a nosuid mount, or "
			"not installed with them); the admin can fix it with: setcap "
			"cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p %s",
			missing, SC_HELPER_PATH);
	else if (s->refusal == 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 64)
		s->refusal =
			refuse(s->refusal_msg, sizeof(s->refusal_msg), EMFILE,
			       "RLIMIT_NOFILE is %llu, below the 64 the helper needs; raise it "
			       "(ulimit -n 64) before sandcap",
			       (unsigned long long) rl.rlim_cur);
}

static int
check_socket(struct session *s)
{
	struct ucred cred;
	socklen_t len;
	int domain = 0, type = 0;

	len = sizeof(domain);
	if (getsockopt(SOCK_FD, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_UNIX)
		return -ENOTSOCK;
	len = sizeof(type);
	if (getsockopt(SOCK_FD, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET)
		return -ENOTSOCK;
	len = sizeof(cred);
	if (getsockopt(SOCK_FD, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	s->uid = cred.uid;
	s->gid = cred.gid;
	s->peer_pid = cred.pid;
	/* The peer must be the process that started us (sandcap), with our real uid: SPAWN's
	 * process becomes its child (CLONE_PARENT), so the caller's. */
	/* AT_UID: the real uid the kernel gave us at exec, which nothing can change since (we
	 * hold no CAP_SETUID). */
	if (cred.pid != getppid() || cred.uid != (uid_t) getauxval(AT_UID))
		s->refusal =
			refuse(s->refusal_msg, sizeof(s->refusal_msg), EPERM,
			       "the socket on fd 3 is not connected to the process that started "
			       "the helper");
	return 0;
}

static _Noreturn void
finish(struct session *s, const char *why)
{
	char msg[SESSION_MSG_MAX] = "";
	int r = session_teardown(s, msg, sizeof(msg));

	if (s->id[0] != '\0')
		log_info("uid %u pid %d: %s; session over", (unsigned) s->uid, (int) s->peer_pid,
			 why);
	exit(r < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
}

int
main(int argc, char **argv)
{
	static struct session sess;
	struct session *s = &sess;
	_cleanup_close_ int sfd = -EBADF;
	sigset_t mask;

	if (argc < 1)
		abort();
	(void) argv; /* never read: derive nothing from argv[0] */
	scrub_process(&mask);
	log_setup("sandcap-helper", LOG_INFO, 1);
	session_init(s, SOCK_FD);
	if (check_socket(s) < 0) {
		(void) fprintf(
			stderr,
			"sandcap-helper: fd 3 is not a connected AF_UNIX "
			"SOCK_SEQPACKET socket; sandcap-helper is started by sandcap, not by hand\n");
		return EXIT_FAILURE;
	}
	check_privilege(s);
	if (s->refusal != 0)
		(void) fprintf(stderr, "sandcap-helper: %s\n", s->refusal_msg);

	/* SIGTERM/SIGHUP: tear down and exit.  SIGINT/SIGQUIT from the terminal reach the
	 * whole foreground group: sandcap handles them and tells us; we ignore them.  All four
	 * are blocked since scrub_process(). */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return EXIT_FAILURE;

	for (;;) {
		struct pollfd p[2] = { { .fd = SOCK_FD, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		uint8_t buf[WIRE_MSG_MAX + 1];
		int fds[WIRE_FDS_MAX], status = 0, r;
		size_t nfds = 0;

		r = poll(p, 2, wait_ms(s));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			finish(s, "poll failed");
		if (r == 0 && !s->attached)
			finish(s, "idle client");
		if (r == 0) {
			/* Past the policy's timeout and the backstop: sandcap did not end it. */
			s->backstop_ms = 0;
			log_notice("uid %u: %s outlived its timeout by %d s: killing it",
				   (unsigned) s->uid, s->id, DEADLINE_BACKSTOP_MS / 1000);
			(void) cg_kill_fd(s->kill_fd);
			continue;
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si) &&
			    (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP))
				finish(s, "terminated by signal");
			continue;
		}
		r = wire_recv(SOCK_FD, buf, sizeof(buf), fds, &nfds);
		if (r == 0 || r == -ECONNRESET)
			finish(s, "client closed the connection");
		if (r < 0)
			helper_fatal(s, "bad datagram (%s)", strerror(-r));
		r = dispatch(s, buf, (size_t) r, fds, nfds, &status);
		wire_close_fds(fds, nfds);
		if (r > 0)
			exit(status); /* teardown logged what it removed */
	}
}
