/* SPDX-License-Identifier: MIT */
/* One helper process serves one session: one caller, at most one sandbox. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "cgroup.h"
#include "policy.h"
#include "wire.h"

#define SESSION_MSG_MAX 512

struct session {
	int sock;  /* fd 3 */
	uid_t uid; /* SO_PEERCRED: the only source of identity */
	gid_t gid;
	pid_t peer_pid;     /* == getppid(), checked at start-up */
	unsigned permitted; /* dispatch state: bits of ops allowed now */
	uint32_t seq;       /* next expected request seq */

	int refusal; /* start-up refusal (positive errno), sent at HELLO */
	char refusal_msg[SESSION_MSG_MAX];

	struct policy *policy;
	struct policy_resolved res;
	int cgroot_fd;   /* delegated parent */
	int wsroot_fd;   /* workspace_root */
	int lockdir_fd;  /* workspace_root/.locks, root 0700 */
	int uiddir_fd;   /* workspace_root/<uid>, root 0755 (from CREATE on) */
	int ucg_fd;      /* cgroup_root/<uid>: the per-user level (ditto) */
	int ulock_fd;    /* .locks/user-<uid>.lock (user_lock()) */
	int deadline_fd; /* SC_DEADLINE_DIR, if it existed at HELLO */

	char id[CG_NAME_MAX];   /* "" until CREATE picked a name */
	uint32_t role;          /* enum wire_session_role, from CREATE */
	char join[CG_NAME_MAX]; /* WIRE_SESSION_CALL: the session level's name */
	int lock_fd;            /* flock'ed <id>.lock: "a live helper owns <id>" */
	int leaf_fd, kill_fd, events_fd;
	bool attached;        /* SPAWN made the sandbox's first process */
	uint64_t backstop_ms; /* then, with a timeout: CLOCK_MONOTONIC ms to kill it at */
	bool killed;          /* KILL done, nothing spawned since: no second kill */
	int ws_fd;            /* O_PATH fd of the workspace root (tmpfs); never
					 * handed out */
	char ws_path[POLICY_PATH_MAX + 2 * CG_NAME_MAX];
	struct {
		uint64_t v[_POLICY_LIMIT_MAX];
	} eff;
	char enforcement[256];

	int reply_fds[WIRE_FDS_MAX]; /* borrowed; sent with the next reply */
	size_t n_reply_fds;
};

/* A request handler: 0 or -errno (sent back as the status, msg as the reason).  Never
 * exits. */
typedef int op_fn(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
		  char *msg, size_t msglen);

/* The umask the helper inherited from sandcap, the caller's: the process SPAWN makes gets
 * it back (main.c sets it once, before any request). */
extern mode_t caller_umask;

/* The handlers of HELLO, CREATE (op_cgroup.c), SPAWN (op_spawn.c), KILL and DESTROY. */
op_fn op_hello, op_create, op_spawn, op_kill, op_destroy;

/* The dispatch state machine (dispatch.c).  Pure parts are exposed for unit tests. */
#define OP_ONCE        1u /* revoke the op's bit after success */
#define OP_END         2u /* the session ends after the reply */
#define OP_END_ON_FAIL 4u /* ... or after a failed reply */
struct op {
	uint16_t type;
	unsigned bit;
	unsigned flags;
	unsigned enables;
	op_fn *fn;
};
#define SESSION_START_PERMITTED 1u /* HELLO only */
/* The op for type if it is allowed in state permitted; -EPROTO for an unknown type,
 * -EPERM for one out of order. */
int dispatch_lookup(unsigned permitted, uint16_t type, const struct op **ret);
/* The state after op finished with result r. */
unsigned dispatch_next(unsigned permitted, const struct op *op, int r);
/* Handle one datagram: parse, check, run, reply.  Returns 1 when the session is over
 * (exit status in *ret_status), 0 to continue.  Protocol violations call helper_fatal(). */
int dispatch(struct session *s, const uint8_t *buf, size_t n, int *fds, size_t nfds,
	     int *ret_status);

/* A session on sock before its first request: nothing opened yet (here, not in session.c,
 * so the fuzz target that cannot link session.c starts from the same state). */
static inline void
session_init(struct session *s, int sock)
{
	memset(s, 0, sizeof(*s));
	s->sock = sock;
	s->permitted = SESSION_START_PERMITTED;
	s->seq = 1;
	s->cgroot_fd = s->wsroot_fd = s->lockdir_fd = s->uiddir_fd = -EBADF;
	s->lock_fd = s->leaf_fd = s->kill_fd = s->events_fd = s->ws_fd = -EBADF;
	s->ucg_fd = s->ulock_fd = s->deadline_fd = -EBADF;
}

/* session.c */
/* Undo everything this session created, in reverse order, the sandbox killed first.
 * 0 if nothing is left behind. */
int session_teardown(struct session *s, char *msg, size_t msglen);
/* Remove what is left of sandbox id of s->uid, its processes gone: the workspace (ws_fd, or
 * found by name) emptied, shrunk and detached, its mount point, the leaf, the lock file and
 * the deadline record; each missing one is skipped.  0, or -errno with msg when something
 * stays (the lock file then too, for a later reclaim). */
int sandbox_remove(struct session *s, const char *id, int ws_fd, char *msg, size_t msglen);
/* Format a refusal's reason into msg and return r (its errno). */
int refuse(char *msg, size_t msglen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Log, tear down, exit(1).  For protocol violations (OpenSSH fatal_f). */
_Noreturn void helper_fatal(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* op_mount.c */
/* Open and check workspace_root (root-owned, not group/other-writable) into s->wsroot_fd. */
int ws_root_open(struct session *s, char *msg, size_t msglen);
/* The workspace: its mount point (staged in .locks) and the tmpfs on it; a note for the
 * reply goes to note. */
int ws_mount(struct session *s, char *note, size_t notelen);
/* Empty and shrink the workspace <uiddir>/<id> (mount root fd ws_fd, or -EBADF to find it
 * by name).  -EBUSY when something outside still holds data in it: it is then left mounted
 * (and counted) for a later reclaim. */
int ws_empty(int uiddir_fd, const char *id, int ws_fd);
/* Detach it and remove the mount point. */
int ws_detach(int uiddir_fd, const char *id);
/* Reclaim the leftovers of s->uid whose helper is gone (no per-user lock needed: each
 * leftover's own lock file decides). */
void reclaim_leftovers(struct session *s);

/* user.c: root-owned directories made without a window for the user. */
/* 0 if the directory fd is owned by 0:0 with exactly mode, -EPERM if not, -errno. */
int dir_check_root(int fd, mode_t mode);
/* Open <parent>/<name> (mode lets everyone search it: opened without a capability),
 * creating it if missing; either way it must be a directory owned by 0:0 with exactly
 * mode.  A new one is made as .new-<name>-dir in stage_fd (the root 0700 .locks) and
 * renamed into place.  Only under the per-user lock (user_lock()) of the user it is for. */
int dir_root_owned(int parent_fd, const char *name, mode_t mode, int stage_fd, int *ret_fd);
/* Make <parent>/<name> as dir_root_owned() makes a new one: as tmp (".new-<uid>-dir" or
 * ".new-<id>", names reclaim knows) in stage_fd (which must be the root 0700 .locks),
 * without looking for an existing one first (-EEXIST if there is). */
int make_staged(int stage_fd, const char *tmp, int parent_fd, const char *name, mode_t mode,
		int *ret_fd);

/* user.c: the per-user lock and level, and joining a session level.  USER_LOCK_MS is
 * generous: only helpers of the same uid wait for it (concurrent CREATEs of one user queue
 * here), and a user who stops a helper holding it delays only their own sandboxes. */
#define USER_LOCK_MS 30000
/* Take the per-user lock (bounded; -EAGAIN with msg when another helper of the uid holds
 * it too long); flock(ulock_fd, LOCK_UN) releases it.  Never held across client I/O. */
int user_lock(struct session *s, char *msg, size_t msglen);
/* Under the lock: workspace_root/<uid> and cgroup_root/<uid>, made if missing. */
int user_prepare(struct session *s, char *msg, size_t msglen);
/* Under the lock: how many leaves of s->uid the per-user level holds. */
int user_count(struct session *s, unsigned *ret_live);
/* The policy's totals into the per-user level (max where it sets none). */
int user_write_totals(struct session *s, char *msg, size_t msglen);
/* Check a call's limits (req) against the session level s->join, found under the caller's
 * own level only, and make s->ucg_fd that level's fd. */
int session_join(struct session *s, const uint64_t *req, char *msg, size_t msglen);

/* deadline.c: deadline records for sandcap-reaper (lib/deadline-record.h), written at
 * CREATE, removed at teardown; and the next helper of any user kills the expired sandboxes
 * it sees. */
/* Record s's deadline (timeout + backstop from now, CLOCK_BOOTTIME) in SC_DEADLINE_DIR.
 * Nothing to do when the sandbox has no timeout.  -errno when it cannot be recorded. */
int deadline_record(struct session *s);
/* Kill (cgroup.kill) every sandbox of any user whose recorded deadline has passed and
 * remove its record; dfd is SC_DEADLINE_DIR (-EBADF: none, nothing to do).  Never waits:
 * removal is left to the owner's helper or the reaper. */
void deadline_reap_expired(int dfd);

/* op_net.c: --net in cgroup mode, the helper's BPF programs on the leaf. */
/* Load the programs for net (a policy_net) and attach them to s->leaf_fd, before any
 * process is attached.  0 for POLICY_NET_HOST (nothing to do); -ENOTSUP with msg when
 * the helper lacks cap_bpf/cap_net_admin or the kernel refuses. */
int net_attach(struct session *s, uint32_t net, uint16_t proxy_port, char *msg, size_t msglen);
