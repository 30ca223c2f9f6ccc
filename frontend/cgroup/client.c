/* SPDX-License-Identifier: MIT */
/* The front-end's side of the helper protocol: spawn sandcap-helper, one call per request.
 * Contracts in client.h; the protocol in docs/PROTOCOL.md. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/client.h"
#include "errbuf.h"
#include "macro.h"
#include "procstat.h"
#include "wire.h"
#include "wire_io.h"

void
client_init(struct sc_session *s)
{
	memset(s, 0, sizeof(*s));
	s->sock = -EBADF;
	s->leaf_fd = -EBADF;
	s->ws_fd = -EBADF;
	s->seq = 1;
}

static int
reap_helper(struct sc_session *s)
{
	int status = 0;

	if (s->helper_pid <= 0)
		return 0;
	while (waitpid(s->helper_pid, &status, 0) < 0 && errno == EINTR)
		;
	s->helper_pid = 0;
	return status;
}

void
client_close(struct sc_session *s)
{
	s->leaf_fd = safe_close(s->leaf_fd);
	s->ws_fd = safe_close(s->ws_fd);
	s->sock = safe_close(s->sock); /* EOF: the helper tears down and exits */
	(void) reap_helper(s);
}

/* Every round trip has a deadline: a helper that does not answer in time
 * (stopped, stuck, or flooded) must not hang sandcap, which would then enforce nothing.  It
 * is treated as dead: killed, so it cannot act later on a stale request, and reaped.  What
 * it held (leaf, workspace) is left to the reaper and to the next run's reclaim. */
static void
helper_dead(struct sc_session *s, uint16_t type, unsigned ms, char *err, size_t errlen)
{
	if (s->helper_pid > 0)
		(void) kill(s->helper_pid, SIGKILL);
	s->sock = safe_close(s->sock);
	(void) reap_helper(s);
	s->dead = true;
	set_err(err, errlen,
		"sandcap-helper did not answer request %#x within %u ms: treated as "
		"dead (killed)",
		type, ms);
}

/* The receive deadline of the next reply; set only when it changes (perf: not a
 * setsockopt() per round trip).  Requests are sent without blocking instead of under
 * a send deadline: one request is outstanding at a time, so a send that would block means
 * a broken helper, which is treated as dead at once. */
static void
set_deadline(struct sc_session *s, unsigned ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	if (s->rcv_deadline_ms == ms)
		return;
	if (setsockopt(s->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0)
		s->rcv_deadline_ms = ms;
}

/* The helper's CPU time in ns (all its threads), 0 when it cannot be read: its process
 * CPU clock, exact where /proc/PID/stat counts clock ticks.  The helper is our unreaped
 * child, so the pid cannot name another process. */
static unsigned long long
helper_cpu_ns(const struct sc_session *s)
{
	clockid_t clk;
	struct timespec ts;

	if (s->helper_pid <= 0 || clock_getcpuclockid(s->helper_pid, &clk) != 0 ||
	    clock_gettime(clk, &ts) < 0)
		return 0;
	return (unsigned long long) ts.tv_sec * 1000000000ULL + (unsigned long long) ts.tv_nsec;
}

/* Whether the helper is still getting on: it used at least 10 ms of CPU time (a clock tick)
 * since *cpu_ns, or waits for a
 * CPU ('R').  A helper that is stopped, asleep or gone is not, even if it ran for a moment
 * after the baseline (its own start-up, when HELLO's wait began as it exec'd). */
static bool
helper_busy(const struct sc_session *s, unsigned long long *cpu_ns)
{
	unsigned long long now = helper_cpu_ns(s);
	struct procstat ps;
	bool busy = now >= *cpu_ns + 10000000ULL;

	*cpu_ns = now;
	if (!busy && s->helper_pid > 0 && procstat_read(s->helper_pid, &ps) == 0)
		busy = ps.state == 'R';
	return busy;
}

/* Receive the reply within the deadline of ms.  A helper that is busy when it passes is
 * given the deadline again, up to CLIENT_BUSY_ROUNDS deadlines in all: on a machine where
 * hundreds of sandboxes start at once, a helper may wait seconds for a CPU before it runs
 * at all, and that is load, not a hung helper.  Only sandcap's own run waits longer; a
 * stopped or blocked helper is still dead after one deadline, and so is one that misses
 * rounds == 1 (KILL).  *waited: the ms waited. */
static int
recv_reply(struct sc_session *s, unsigned ms, unsigned rounds, uint8_t *rbuf, size_t rbufsz,
	   int *rfds, size_t *nrfds, unsigned *waited)
{
	/* The baseline of helper_busy(), unless the deadline cannot be extended (KILL). */
	unsigned long long cpu = rounds > 1 ? helper_cpu_ns(s) : 0;
	int n;

	for (unsigned round = 1;; round++) {
		n = wire_recv(s->sock, rbuf, rbufsz, rfds, nrfds);
		*waited = round * ms;
		if ((n != -EAGAIN && n != -EWOULDBLOCK) || round >= rounds || !helper_busy(s, &cpu))
			return n;
	}
}

/* One round trip.  Sends the request with nfds fds; receives the reply, checks that it
 * answers this request, and leaves the body (after status and reason) in *ret_body.
 * Returns -status for a refusal (reason in err), -EPROTO for a broken helper, -ETIMEDOUT
 * when the helper did not answer in time (it is then killed: s->dead). */
static int
roundtrip(struct sc_session *s, struct wire_wr *wr, const int *fds, size_t nfds, uint8_t *rbuf,
	  size_t rbufsz, int *rfds, size_t *ret_nrfds, struct wire_rd *ret_body, char *err,
	  size_t errlen)
{
	unsigned ms;
	struct wire_hdr h;
	struct wire_rd rd;
	uint16_t type = (uint16_t) ((wr->buf[6] << 8) | wr->buf[7]); /* after magic, version */
	uint32_t seq = s->seq;
	char reason[WIRE_STR_MAX + 1] = "";
	uint32_t status = 0;
	size_t nrfds = 0;
	unsigned waited = 0;
	int n, r;

	n = wire_msg_end(wr);
	if (n < 0) {
		set_err(err, errlen, "cannot encode request: %s", strerror(-n));
		return n;
	}
	if (s->sock < 0)
		return -EINVAL;
	/* HELLO and CREATE include the helper's start, the policy, its locks and the mount;
	 * DESTROY waits for the leaf to empty and unmounts: more room, still bounded. */
	ms = type == WIRE_REQ_DESTROY  ? CLIENT_DESTROY_DEADLINE_MS
	     : type == WIRE_REQ_HELLO  ? CLIENT_SETUP_DEADLINE_MS
	     : type == WIRE_REQ_CREATE ? CLIENT_LOCKED_DEADLINE_MS
				       : CLIENT_DEADLINE_MS;
	set_deadline(s, ms);
	r = wire_send_nowait(s->sock, wr->buf, (size_t) n, fds, nfds);
	if (r == -EAGAIN || r == -EWOULDBLOCK) {
		helper_dead(s, type, ms, err, errlen);
		return -ETIMEDOUT;
	}
	if (r < 0) {
		set_err(err, errlen, "cannot talk to sandcap-helper: %s", strerror(-r));
		return -EPROTO;
	}
	s->seq++;
	/* KILL is the enforcer's step: its deadline is never extended. */
	n = recv_reply(s, ms, type == WIRE_REQ_KILL ? 1 : CLIENT_BUSY_ROUNDS, rbuf, rbufsz, rfds,
		       &nrfds, &waited);
	if (n == -EAGAIN || n == -EWOULDBLOCK) {
		helper_dead(s, type, waited, err, errlen);
		return -ETIMEDOUT;
	}
	if (n <= 0) {
		set_err(err, errlen,
			n == 0 ? "sandcap-helper exited without replying"
			       : "cannot read sandcap-helper's reply: %s",
			strerror(-n));
		return -EPROTO;
	}
	r = wire_parse(rbuf, (size_t) n, &h, &rd);
	if (r == 0 && (h.type != (type | WIRE_REPLY) || h.seq != seq))
		r = -EPROTO;
	if (r == 0)
		r = wire_get_u32(&rd, &status);
	if (r == 0)
		r = wire_get_str(&rd, reason, sizeof(reason));
	if (r == 0 && status > 4095)
		r = -EPROTO;
	if (r < 0) {
		wire_close_fds(rfds, nrfds);
		set_err(err, errlen, "malformed reply from sandcap-helper");
		return -EPROTO;
	}
	if (status != 0) {
		wire_close_fds(rfds, nrfds);
		if (reason[0] != '\0')
			set_err(err, errlen, "%s", reason);
		else
			set_err(err, errlen, "%s", strerror((int) status));
		return -(int) status;
	}
	*ret_nrfds = nrfds;
	*ret_body = rd;
	return 0;
}

/* What the helper's spawned child needs; it shares our memory until it execs (CLONE_VM |
 * CLONE_VFORK), so it reports an exec failure in err, not through a pipe. */
struct spawn_args {
	const char *path;
	int sock; /* the helper's end of the socketpair, to become its fd 3 */
	int err;  /* the child's errno, 0 if it exec'd */
};

/* The child: only system calls on its own descriptors, then exec or _exit; it runs on its
 * own stack while we wait (CLONE_VFORK), and never returns into our frames. */
static int
spawn_child(void *arg)
{
	struct spawn_args *a = arg;
	char *const argv[] = { (char *) "sandcap-helper", NULL };
	int e;

	/* The helper's own stderr would repeat, at length and whatever -q says, the refusal
	 * it also sends in its reply, which sandcap reports once; it logs to
	 * syslog otherwise. */
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (devnull >= 0) {
		(void) dup2(devnull, STDERR_FILENO);
		(void) close(devnull);
	}
	/* fd 3 must be the socket; dup2 clears FD_CLOEXEC on the copy. */
	if (a->sock == 3)
		e = fcntl(3, F_SETFD, 0) < 0 ? errno : 0;
	else
		e = dup2(a->sock, 3) < 0 ? errno : 0;
	if (e == 0) {
		(void) execv(a->path, argv);
		e = errno;
	}
	a->err = e != 0 ? e : EINVAL;
	_exit(127);
}

static int
not_installed(const char *path, char *err, size_t errlen)
{
	set_err(err, errlen,
		"helper %s is not installed (install sandcap-helper, or set "
		"SANDCAP_HELPER to its path)",
		path);
	return -ENOENT;
}

/* Start the helper with clone(CLONE_VM | CLONE_VFORK) rather than fork(): no pipe is
 * needed to learn of an exec failure, which the child leaves in our memory (and, perf, no
 * copy of our page tables).  We are suspended until the child execs or exits; the helper it execs
 * is the same program with the same descriptors as before. */
static int
spawn_helper(struct sc_session *s, const char *path, char *err, size_t errlen)
{
	/* The child's stack: static, as only one child runs at a time and we wait for it. */
	static char stack[16384] __attribute__((aligned(16)));
	_cleanup_close_ int p1 = -EBADF;
	struct spawn_args a = { .path = path };
	int sv[2];
	pid_t pid;

	/* No helper installed is the common case of rlimit mode: find it out with access()
	 * rather than a process that execs nothing.  Any other answer, and a
	 * helper installed meanwhile, is left to the exec itself. */
	if (access(path, X_OK) < 0 && errno == ENOENT)
		return not_installed(path, err, errlen);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	s->sock = sv[0];
	p1 = sv[1];
	a.sock = p1;

	pid = clone(spawn_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	if (pid < 0)
		return -errno;
	s->helper_pid = pid;
	p1 = safe_close(p1);
	if (a.err != 0) {
		(void) reap_helper(s);
		if (a.err == ENOENT)
			return not_installed(path, err, errlen);
		set_err(err, errlen, "cannot execute helper %s: %s", path, strerror(a.err));
		return -a.err;
	}
	return 0;
}

/* One request of the small kind: its body at most one u32 (*arg; NULL: empty), fds with
 * it, and a reply whose body is at most one u32 (*reply; NULL: empty) with no fds.  Every
 * request but HELLO needs the sandbox CREATE made (-EINVAL).  what names the request in
 * the message of a malformed reply.  Never inlined (perf): its two
 * message buffers are not on the stack of a run that finds no helper. */
static _noinline_ int
small_request(struct sc_session *s, uint16_t type, const uint32_t *arg, const int *fds, size_t nfds,
	      uint32_t *reply, const char *what, char *err, size_t errlen)
{
	uint8_t buf[WIRE_MSG_MAX], rbuf[WIRE_MSG_MAX + 1];
	int rfds[WIRE_FDS_MAX];
	struct wire_wr wr;
	struct wire_rd body;
	size_t nrfds = 0;
	int r;

	if (s->sock < 0 || (type != WIRE_REQ_HELLO && !s->created))
		return -EINVAL;
	wire_msg_begin(&wr, buf, sizeof(buf), type, s->seq);
	if (arg != NULL)
		wire_put_u32(&wr, *arg);
	r = roundtrip(s, &wr, fds, nfds, rbuf, sizeof(rbuf), rfds, &nrfds, &body, err, errlen);
	if (r < 0)
		return r;
	if (nrfds != 0 || (reply != NULL && wire_get_u32(&body, reply) < 0) ||
	    wire_get_end(&body) < 0) {
		wire_close_fds(rfds, nrfds);
		set_err(err, errlen, "malformed %s reply from sandcap-helper", what);
		return -EPROTO;
	}
	return 0;
}

/* HELLO on a helper just started. */
static int
hello(struct sc_session *s, char *err, size_t errlen)
{
	const uint32_t ours = WIRE_VERSION;
	uint32_t version = 0;
	int r;

	r = small_request(s, WIRE_REQ_HELLO, &ours, NULL, 0, &version, "HELLO", err, errlen);
	if (r == 0 && version != WIRE_VERSION) {
		set_err(err, errlen, "malformed HELLO reply from sandcap-helper");
		r = -EPROTO;
	}
	return r;
}

int
client_open(struct sc_session *s, char *err, size_t errlen)
{
	const char *path = getenv("SANDCAP_HELPER");
	int r;

	if (path == NULL || path[0] == '\0')
		path = SC_HELPER_PATH;
	r = spawn_helper(s, path, err, errlen);
	if (r < 0) {
		if (err != NULL && errlen > 0 && err[0] == '\0')
			set_err(err, errlen, "cannot start helper %s: %s", path, strerror(-r));
		client_close(s);
		return r;
	}
	r = hello(s, err, errlen);
	if (r < 0) {
		client_close(s);
		return r;
	}
	return 0;
}

static int
open_workspace(const char *path)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct statfs sfs;

	if (fd >= 0 && (fstatfs(fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC))
		fd = safe_close(fd);
	return fd;
}

int
client_create(struct sc_session *s, const struct sc_request *req, char *err, size_t errlen)
{
	uint8_t buf[WIRE_MSG_MAX], rbuf[WIRE_MSG_MAX + 1];
	int rfds[WIRE_FDS_MAX];
	struct sc_request eff = { .net = req->net, .fs = req->fs, .proxy_port = req->proxy_port };
	char id[CLIENT_ID_MAX], ws[PATH_MAX], enf[sizeof(s->enforcement)];
	char tsrc[3][POLICY_SRC_MAX];
	struct wire_wr wr;
	struct wire_rd body;
	size_t nrfds = 0;
	int r;

	if (s->sock < 0 || s->created)
		return -EINVAL;
	wire_msg_begin(&wr, buf, sizeof(buf), WIRE_REQ_CREATE, s->seq);
	wire_put_u64(&wr, req->memory);
	wire_put_u64(&wr, req->cpu_percent);
	wire_put_u64(&wr, req->pids);
	wire_put_u64(&wr, req->disk);
	wire_put_u64(&wr, req->timeout_ms);
	wire_put_u32(&wr, (uint32_t) req->net);
	wire_put_u32(&wr, (uint32_t) req->fs);
	wire_put_u32(&wr, req->net == POLICY_NET_PROXY ? req->proxy_port : 0);
	wire_put_u32(&wr, req->session_role);
	wire_put_str(&wr, req->session_role == WIRE_SESSION_CALL ? req->session : "");
	r = roundtrip(s, &wr, NULL, 0, rbuf, sizeof(rbuf), rfds, &nrfds, &body, err, errlen);
	if (r < 0)
		return r;
	r = nrfds == 1 ? 0 : -EPROTO;
	if (r == 0)
		r = wire_get_str(&body, id, sizeof(id));
	if (r == 0)
		r = wire_get_u64(&body, &eff.memory);
	if (r == 0)
		r = wire_get_u64(&body, &eff.cpu_percent);
	if (r == 0)
		r = wire_get_u64(&body, &eff.pids);
	if (r == 0)
		r = wire_get_u64(&body, &eff.disk);
	if (r == 0)
		r = wire_get_u64(&body, &eff.timeout_ms);
	if (r == 0)
		r = wire_get_str(&body, ws, sizeof(ws));
	if (r == 0)
		r = wire_get_str(&body, enf, sizeof(enf));
	for (int t = 0; t < 3 && r == 0; t++)
		r = wire_get_str(&body, tsrc[t], sizeof(tsrc[t]));
	if (r == 0)
		r = wire_get_end(&body);
	if (r < 0) {
		wire_close_fds(rfds, nrfds);
		set_err(err, errlen, "malformed CREATE reply from sandcap-helper");
		return -EPROTO;
	}
	memcpy(s->id, id, sizeof(id));
	memcpy(s->ws_path, ws, sizeof(ws));
	memcpy(s->enforcement, enf, sizeof(enf));
	memcpy(s->total_src, tsrc, sizeof(tsrc));
	s->effective = eff;
	s->leaf_fd = rfds[0];
	/* The helper hands out no workspace descriptor (PROTOCOL.md 3.2): we open the path as
	 * the user, for its disk usage (fstatfs); only if it is the tmpfs the helper mounted. */
	s->ws_fd = open_workspace(ws);
	s->created = true;
	return 0;
}

int
client_spawn(struct sc_session *s, int stage_sock, pid_t *ret_pid, char *err, size_t errlen)
{
	uint32_t pid = 0;
	int r;

	r = small_request(s, WIRE_REQ_SPAWN, NULL, &stage_sock, 1, &pid, "SPAWN", err, errlen);
	if (r < 0)
		return r;
	if (pid == 0 || pid > INT32_MAX) {
		set_err(err, errlen, "malformed SPAWN reply from sandcap-helper");
		return -EPROTO;
	}
	s->attached = true;
	*ret_pid = (pid_t) pid;
	return 0;
}

int
client_kill(struct sc_session *s, char *err, size_t errlen)
{
	return small_request(s, WIRE_REQ_KILL, NULL, NULL, 0, NULL, "KILL", err, errlen);
}

int
client_destroy(struct sc_session *s, char *err, size_t errlen)
{
	int r, status;

	/* Our fds would keep the workspace mount and the leaf's inodes referenced. */
	s->leaf_fd = safe_close(s->leaf_fd);
	s->ws_fd = safe_close(s->ws_fd);
	if (s->dead) {
		set_err(err, errlen,
			"sandcap-helper stopped answering and was treated as dead: its "
			"cgroup and workspace are left for the reaper and the next run's reclaim");
		return -ETIMEDOUT;
	}
	r = small_request(s, WIRE_REQ_DESTROY, NULL, NULL, 0, NULL, "DESTROY", err, errlen);
	s->sock = safe_close(s->sock);
	status = reap_helper(s);
	if (r == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		set_err(err, errlen, "sandcap-helper ended with status %d after teardown", status);
		r = -EPROTO;
	}
	return r;
}
