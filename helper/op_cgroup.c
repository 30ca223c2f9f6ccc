/* SPDX-License-Identifier: MIT */
/*
 * Contract: the request handlers.  Trusts: the caller's identity from SO_PEERCRED only;
 * the policy only after policy_read_trusted()'s owner/mode checks; nothing in a request
 * except as numbers checked against the caller's resolved ceilings.  Objects are named by
 * the helper (the leaf, the workspace), never by the client.  No process is ever moved
 * into a leaf by its number: SPAWN (op_spawn.c) creates the sandbox's first process in it.
 * Capabilities: through priv.c only (each call site says why the object is safe).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "priv.h"
#include "cgroup.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "session.h"

/* Why the caller's lookup failed, for the refusal (-EPERM). */
static int
lookup_failed(const struct session *s, const struct policy_caller *c, int r, char *msg,
	      size_t msglen)
{
	if (r == -ENOENT)
		return refuse(msg, msglen, -EPERM, "uid %u has no (usable) user name",
			      (unsigned) s->uid);
	if (r == -E2BIG)
		return refuse(msg, msglen, -EPERM, "user %s is in more than %d groups", c->user,
			      POLICY_GROUPS_MAX);
	if (c->user != NULL && r != -ENOMEM)
		return refuse(msg, msglen, -EPERM, "cannot look up group %u of user %s: %s",
			      (unsigned) c->failed_gid, c->user, strerror(-r));
	return refuse(msg, msglen, -EPERM, "cannot look up uid %u: %s", (unsigned) s->uid,
		      strerror(-r));
}

/* Look up the caller's names through NSS (the environment is already cleared), when the
 * policy names users or groups at all.  When it names neither, the verdict cannot depend on
 * a name, and the lookup (nscd, nsswitch.conf, passwd, group) is skipped; a uid without a
 * passwd entry is then judged like any other uid.  No section or list names a group: the
 * groups are not looked up (initgroups through every NSS module is a large part of a
 * sandbox's start-up), as membership cannot matter. */
static int
resolve_caller(struct session *s, char *msg, size_t msglen)
{
	_cleanup_(policy_caller_done) struct policy_caller c = {};
	struct policy_subject subj = {};
	char user[32];
	int r;

	(void) snprintf(user, sizeof(user), "uid %u", (unsigned) s->uid);
	if (policy_names_users(s->policy) || policy_names_groups(s->policy)) {
		r = policy_caller_lookup(s->uid, policy_names_groups(s->policy), POLICY_GROUPS_MAX,
					 &c);
		if (r < 0)
			return lookup_failed(s, &c, r, msg, msglen);
		subj = policy_caller_subject(&c);
	}
	policy_resolve(s->policy, &subj, &s->res);
	if (!s->res.allowed)
		return refuse(msg, msglen, -EPERM, "user %s may not run sandboxes: %s",
			      subj.user != NULL ? subj.user : user, s->res.deny_reason);
	return 0;
}

static int
load_policy(struct session *s, char *msg, size_t msglen)
{
	enum policy_load_step step;
	char err[POLICY_ERR_MAX];

	if (policy_load(SC_POLICY_PATH, &s->policy, &step, err, sizeof(err)) == 0)
		return 0;
	if (step == POLICY_LOAD_MISSING)
		snprintf(msg, msglen,
			 "no policy file %s: the admin must install one (see "
			 "sandbox.ini(5))",
			 SC_POLICY_PATH);
	else if (step == POLICY_LOAD_UNTRUSTED)
		snprintf(msg, msglen, "policy file %s is not trusted: %s", SC_POLICY_PATH, err);
	else
		snprintf(msg, msglen, "invalid policy: %s (run 'sandcap policy check')", err);
	return -ENOTSUP;
}

/* The shared directories: cgroup_root (a path of the trusted policy, checked: cgroup2,
 * root-owned 0700) and its cgroup.subtree_control, the per-user level <uid> in it,
 * workspace_root/.locks (workspace_root checked before: root-owned, not writable by group
 * or other), and SC_DEADLINE_DIR (a build-time path).  Fixed names under root-owned
 * directories no user can write, opened O_NOFOLLOW; nothing is created but the per-user
 * lock file.  .locks and SC_DEADLINE_DIR are the packages' and sandcap-setup's (checked
 * here and by deadline_record()); the per-user dirs are made at CREATE under the per-user
 * lock (user_prepare()). */
static int
open_dirs(struct session *s, char *msg, size_t msglen)
{
	const int dir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
	const char *root = policy_cgroup_root(s->policy);
	char buf[256], name[32];
	int r;

	r = ws_root_open(s, msg, msglen);
	if (r < 0)
		return r;
	(void) snprintf(name, sizeof(name), "%u", (unsigned) s->uid);
	r = cg_open_root(root, &s->cgroot_fd, buf, sizeof(buf));
	if (r == 0)
		s->ucg_fd = priv_openat(s->cgroot_fd, name, dir, 0);
	/* workspace_root/<uid> as the per-user level: if a session of the user made them (and
	 * handed the dir to root), for reclaim_leftovers(), which runs outside the per-user
	 * lock; user_prepare() makes what is missing, under it. */
	s->uiddir_fd = openat(s->wsroot_fd, name, dir | O_CLOEXEC);
	if (s->uiddir_fd >= 0 && dir_check_root(s->uiddir_fd, 0755) < 0)
		s->uiddir_fd = safe_close(s->uiddir_fd);
	s->lockdir_fd = priv_openat(s->wsroot_fd, ".locks", dir, 0);
	s->deadline_fd = priv_openat(AT_FDCWD, SC_DEADLINE_DIR, dir, 0);
	if (r < 0)
		return refuse(
			msg, msglen, -ENOTSUP, "cgroup_root %s: %s", root,
			r == -EXDEV    ? "not on cgroup v2 (mount cgroup2 at /sys/fs/cgroup)"
			: r == -EPERM  ? "must be owned by root with mode 0700 (run sandcap-setup)"
			: r == -ENOENT ? "does not exist: the admin must create the delegated "
					 "parent (run sandcap-setup)"
				       : strerror(-r));
	/* No lock is held on the shared parent: helpers of different users share nothing
	 * they could wait for (user_lock()). */
	/* Without the controllers enabled the limit files do not exist in leaves. */
	if (!word_in_list(buf, "memory") || !word_in_list(buf, "pids") || !word_in_list(buf, "cpu"))
		return refuse(msg, msglen, -ENOTSUP,
			      "cgroup_root %s does not delegate the cpu, memory and pids "
			      "controllers (echo '+cpu +memory +pids' > %s/cgroup.subtree_control)",
			      root, root);
	r = s->lockdir_fd < 0 ? s->lockdir_fd : dir_check_root(s->lockdir_fd, 0700);
	if (r < 0)
		return refuse(msg, msglen, -ENOTSUP,
			      "%s/.locks: %s; it must exist, owned by root with mode 0700 "
			      "(run sandcap-setup, or reinstall the sandcap package)",
			      policy_workspace_root(s->policy), strerror(-r));
	/* The per-user lock file (user_lock()): the one name created at HELLO. */
	(void) snprintf(name, sizeof(name), "user-%u.lock", (unsigned) s->uid);
	s->ulock_fd = priv_openat(s->lockdir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
	if (s->ulock_fd < 0)
		snprintf(msg, msglen, "cannot open the per-user lock: %s", strerror(-s->ulock_fd));
	return s->ulock_fd < 0 ? s->ulock_fd : 0;
}

int
op_hello(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body, char *msg,
	 size_t msglen)
{
	uint32_t version;
	int r;

	if (wire_get_u32(rd, &version) < 0 || wire_get_end(rd) < 0)
		return -EBADMSG;
	if (version != WIRE_VERSION)
		return refuse(msg, msglen, -EPROTONOSUPPORT,
			      "protocol version %u not supported (helper speaks %u): "
			      "sandcap and sandcap-helper come from different releases",
			      version, (unsigned) WIRE_VERSION);
	if (s->refusal != 0)
		return refuse(msg, msglen, -s->refusal, "%s", s->refusal_msg);
	r = load_policy(s, msg, msglen) ?: resolve_caller(s, msg, msglen) ?: open_dirs(s, msg, msglen);
	if (r < 0)
		return r;
	wire_put_u32(body, WIRE_VERSION);
	return 0;
}

/* Files of fixed names in the leaf we created in this request and hold by fd, root's since
 * cg_take_at(), under root's 0700 parent: nothing the user controls decides what any of
 * them resolves to.  cgroup.kill is opened now while we can (permission is checked at
 * open) and kept. */
static int
write_limits(struct session *s, char *note, size_t notelen)
{
	const uint64_t *v = s->eff.v;
	int r;

	/* 0 in a sandbox's limits is "no limit". */
	r = cg_write_max(s->leaf_fd, v[POLICY_MEMORY] ? v[POLICY_MEMORY] : UINT64_MAX,
			 v[POLICY_CPU] ? v[POLICY_CPU] : UINT64_MAX,
			 v[POLICY_PIDS] ? v[POLICY_PIDS] : UINT64_MAX)
		    ?: cg_write_at(s->leaf_fd, "memory.oom.group", "1");
	if (r < 0)
		return r;
	s->kill_fd = priv_openat(s->leaf_fd, "cgroup.kill", O_WRONLY | O_NOFOLLOW, 0);
	if (s->kill_fd < 0)
		return s->kill_fd;
	/* memory.swap.max is absent when swap accounting is off (or no swap controller): then
	 * no swap can be charged to the leaf only if there is no swap; we accept and say so in
	 * the reply rather than fail. */
	r = cg_write_at(s->leaf_fd, "memory.swap.max", "0");
	if (r == -ENOENT)
		(void) snprintf(note, notelen, "swap: not accounted (memory.swap.max absent)");
	return r == -ENOENT ? 0 : r;
}

/* The sandbox's lock file: made without a name in root's 0700 .locks, locked, and only then
 * linked as <id>.lock (a fresh name: -EEXIST otherwise), so that no helper ever finds it
 * unlocked while this session lives (reclaim_leftovers()). */
static int
make_lock(struct session *s)
{
	char lock[CG_NAME_MAX + 8];
	int r;

	s->lock_fd = priv_openat(s->lockdir_fd, ".", O_TMPFILE | O_RDWR, 0600);
	if (s->lock_fd < 0)
		return s->lock_fd;
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return -errno;
	(void) snprintf(lock, sizeof(lock), "%s.lock", s->id);
	r = priv_link_fd(s->lock_fd, s->lockdir_fd, lock);
	if (r < 0)
		s->lock_fd = safe_close(s->lock_fd); /* not ours to remove at teardown */
	return r;
}

/* Under the per-user lock: the per-user dirs, the count against the sandboxes ceiling and
 * the new leaf's mkdir; nothing else, so that the user's other helpers wait briefly. */
static int
create_locked(struct session *s, const uint64_t *req, char *msg, size_t msglen)
{
	unsigned live = 0;
	int r;

	r = user_prepare(s, msg, msglen);
	if (r < 0)
		return r;
	/* A call is counted in its session, which counts as one sandbox. */
	if (s->role == WIRE_SESSION_CALL)
		return session_join(s, req, msg, msglen) ?: cg_create_at(s->ucg_fd, s->id);
	r = user_count(s, &live);
	if (r < 0)
		return log_error_errno(r, "uid %u: cannot list leaves: %m", (unsigned) s->uid);
	if (s->res.sandboxes != 0 && live >= s->res.sandboxes)
		return refuse(msg, msglen, -EUSERS,
			      "too many sandboxes: %u already running, the ceiling is %" PRIu64
			      " set by %s",
			      live, s->res.sandboxes, s->res.sandboxes_src);
	r = cg_create_at(s->ucg_fd, s->id);
	if (r < 0)
		return log_error_errno(r, "uid %u: create cgroup %s: %m", (unsigned) s->uid, s->id);
	return 0;
}

/* What follows the leaf's mkdir, outside the per-user lock: the leaf handed to root
 * (cg_take_at()), its limits and cgroup.kill, the workspace (ws_mount(): a mount point
 * staged in .locks, a new tmpfs on it), the net programs, the deadline record and the
 * user's totals.  Every object is made by the helper in this request and reached through an
 * fd it holds; no name the user controls is resolved and nothing of the user's is read. */
static int
create_rest(struct session *s, uint32_t net, uint16_t proxy_port, char *msg, size_t msglen)
{
	char note[128] = "", wsnote[128] = "";
	int r;

	r = cg_take_at(s->ucg_fd, s->id, &s->leaf_fd);
	if (r < 0)
		return log_error_errno(r, "uid %u: take cgroup %s: %m", (unsigned) s->uid, s->id);
	r = write_limits(s, note, sizeof(note));
	if (r < 0)
		return refuse(msg, msglen, r == -ENOENT ? -ENOTSUP : r,
			      "cannot write the limits of cgroup %s: %s%s", s->id, strerror(-r),
			      r == -ENOENT ? " (a controller is not enabled in cgroup_root)" : "");
	/* A session level holds only its calls' leaves (the kernel then refuses SPAWN in it). */
	if (s->role == WIRE_SESSION_LEVEL) {
		r = cg_write_at(s->leaf_fd, "cgroup.subtree_control", "+cpu +memory +pids");
		if (r < 0)
			return refuse(msg, msglen, r, "cannot enable controllers in session %s: %s",
				      s->id, strerror(-r));
	}
	/* The workspace's path for the deadline record and the log.  A call works in its
	 * session's workspace: its record names a path of its own, never mounted, so that
	 * reaping a call cannot unmount the session's. */
	(void) snprintf(s->ws_path, sizeof(s->ws_path), "%s/%u/%s",
			policy_workspace_root(s->policy), (unsigned) s->uid, s->id);
	if (s->role != WIRE_SESSION_CALL)
		r = ws_mount(s, wsnote, sizeof(wsnote));
	if (r < 0)
		return refuse(
			msg, msglen,
			log_error_errno(r, "uid %u: workspace of %s: %m", (unsigned) s->uid, s->id),
			"cannot mount the workspace: %s", strerror(-r));
	s->events_fd = openat(s->leaf_fd, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (s->events_fd < 0)
		return refuse(msg, msglen, -ENOTSUP,
			      "cgroup.events: %m (kernel 5.14 or later needed)");
	r = net_attach(s, net, proxy_port, msg, msglen); /* before any process is in it */
	if (r < 0)
		return r;
	/* For sandcap-reaper and other users' helpers: the user can stop us, not them. */
	r = deadline_record(s);
	if (r < 0)
		return refuse(
			msg, msglen, r, "cannot record the sandbox's deadline in %s: %s%s",
			SC_DEADLINE_DIR, strerror(-r),
			r == -EFBIG
				? " (RLIMIT_FSIZE: raise it with ulimit -f unlimited before sandcap)"
			: r == -ENOENT || r == -EPERM
				? " (it must exist, owned by root with mode 0700: run sandcap-setup, or "
				  "reinstall the sandcap package)"
				: "");
	/* The totals need no lock: every helper of the user writes the same policy's (a
	 * call's s->ucg_fd is its session level, whose limits are not the user's totals). */
	r = s->role == WIRE_SESSION_CALL ? 0 : user_write_totals(s, msg, msglen);
	if (r < 0)
		return r;
	(void) snprintf(s->enforcement, sizeof(s->enforcement), "%s%s%s", note,
			note[0] && wsnote[0] ? "; " : "", wsnote);
	/* One line for the request's privileged actions. */
	log_info("uid %u: created sandbox %s (cgroup, workspace %s) memory=%" PRIu64 " cpu=%" PRIu64
		 "%% pids=%" PRIu64 " disk=%" PRIu64,
		 (unsigned) s->uid, s->id, s->ws_path, s->eff.v[POLICY_MEMORY],
		 s->eff.v[POLICY_CPU], s->eff.v[POLICY_PIDS], s->eff.v[POLICY_DISK]);
	return 0;
}

int
op_create(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body, char *msg,
	  size_t msglen)
{
	static const enum policy_limit order[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS,
						   POLICY_DISK, POLICY_TIMEOUT };
	uint64_t req[_POLICY_LIMIT_MAX];
	char ws[sizeof(s->ws_path)];
	uint32_t net, fs, proxy_port;
	const uint64_t page = (uint64_t) sysconf(_SC_PAGESIZE);
	int r;

	for (size_t i = 0; i < ELEMENTSOF(order); i++)
		if (wire_get_u64(rd, &req[order[i]]) < 0)
			return -EBADMSG;
	/* sandcap never asks for more than 1 EiB (policy.h); nearer UINT64_MAX the page
	 * rounding below would wrap. */
	if (req[POLICY_DISK] > POLICY_SIZE_MAX || req[POLICY_MEMORY] > POLICY_SIZE_MAX)
		return -EBADMSG;
	if (wire_get_u32(rd, &net) < 0 || wire_get_u32(rd, &fs) < 0 ||
	    wire_get_u32(rd, &proxy_port) < 0 ||
	    wire_get_session(rd, &s->role, s->join, sizeof(s->join)) < 0 || wire_get_end(rd) < 0)
		return -EBADMSG;
	/* Wire values (PROTOCOL.md 3.2): a port only with proxy, and then a real one. */
	if (net > POLICY_NET_NONE || (net == POLICY_NET_PROXY) != (proxy_port != 0) ||
	    proxy_port > 65535 || fs > POLICY_FS_STRICT)
		return -EBADMSG;
	/* --fs is applied by sandcap in the child; --net other than host is enforced here, by
	 * the BPF programs net_attach() puts on the leaf.  Refuse less than the policy says.
	 * A session level runs nothing itself: each call's CREATE is checked. */
	if (s->role != WIRE_SESSION_LEVEL &&
	    policy_check_required(&s->res, (enum policy_net) net, (enum policy_fs) fs, msg,
				  msglen) < 0)
		return -EPERM;
	for (size_t i = 0; i < ELEMENTSOF(order); i++) {
		r = policy_check_request(&s->res, order[i], req[order[i]], msg, msglen);
		if (r < 0)
			return -EPERM;
		s->eff.v[order[i]] = policy_effective(&s->res, order[i], req[order[i]]);
	}
	/* The policy's and sandcap's range (policy.h): cpu.max then holds at most 1024 s of
	 * quota per 100 ms period, well inside the kernel's. */
	if (s->eff.v[POLICY_CPU] > POLICY_CPU_MAX)
		return refuse(msg, msglen, -EINVAL,
			      "cpu %" PRIu64 "%% is out of range (1%% to %d%%)",
			      s->eff.v[POLICY_CPU], POLICY_CPU_MAX);
	/* tmpfs rounds the workspace up to whole pages: never past the ceiling (then down). */
	r = policy_disk_pages(s->eff.v[POLICY_DISK], s->res.ceiling[POLICY_DISK], page,
			      &s->eff.v[POLICY_DISK]);
	if (r < 0)
		return refuse(msg, msglen, -EPERM,
			      "disk: your ceiling (%" PRIu64 " bytes) is less than one "
			      "page (%" PRIu64
			      " bytes), the smallest workspace there is; ask the admin",
			      s->res.ceiling[POLICY_DISK], page);

	deadline_reap_expired(s->deadline_fd); /* anyone's: a stopped helper enforces nothing */
	/* Order matters for reclaim: the lock file first, then the leaf, then the workspace;
	 * teardown undoes them in reverse, so a leaf never exists without its lock file. */
	r = cg_name_new(s->uid, s->id, sizeof(s->id)) ?: make_lock(s);
	if (r < 0)
		return log_error_errno(r, "uid %u: lock %s: %m", (unsigned) s->uid, s->id);
	reclaim_leftovers(s);
	/* Count and create under the per-user lock: two helpers of one user cannot both
	 * pass the sandboxes ceiling. */
	r = user_lock(s, msg, msglen);
	if (r < 0)
		return r;
	r = create_locked(s, req, msg, msglen);
	(void) flock(s->ulock_fd, LOCK_UN);
	if (r == 0)
		r = create_rest(s, net, (uint16_t) proxy_port, msg, msglen);
	if (r < 0)
		return r;
	/* A session level runs no process of its own: no idle deadline; its TTL is its timeout. */
	s->attached = s->role == WIRE_SESSION_LEVEL;
	(void) snprintf(ws, sizeof(ws), "%s/%u/%s", policy_workspace_root(s->policy),
			(unsigned) s->uid, s->role == WIRE_SESSION_CALL ? s->join : s->id);

	wire_put_str(body, s->id);
	for (size_t i = 0; i < ELEMENTSOF(order); i++)
		wire_put_u64(body, s->eff.v[order[i]]);
	wire_put_str(body, ws);
	wire_put_str(body, s->enforcement);
	/* Which section set each total, for sandcap's verdict when one ends the sandbox: the
	 * helper's resolution is the one the kernel enforces. */
	for (int t = 0; t < 3; t++)
		wire_put_str(body, s->res.total_src[t]);
	/* The leaf's read-only dirfd only.  No descriptor of the workspace is handed out: one
	 * held would keep the tmpfs (and the pages charged to it) alive after teardown. */
	s->reply_fds[0] = s->leaf_fd;
	s->n_reply_fds = 1;
	return 0;
}
