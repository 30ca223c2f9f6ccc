/* SPDX-License-Identifier: MIT */
/* One helper process serves one session: one caller, at most one sandbox. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "policy.h"
#include "wire.h"

#define SESSION_MSG_MAX 512

struct session {
	int sock;                       /* fd 3 */
	uid_t uid;                      /* SO_PEERCRED: the only source of identity */
	gid_t gid;
	pid_t peer_pid;                 /* == getppid(), checked at start-up */
	unsigned permitted;             /* dispatch state: bits of ops allowed now */
	uint32_t seq;                   /* next expected request seq */

	int refusal;                    /* start-up refusal (positive errno), sent at HELLO */
	char refusal_msg[SESSION_MSG_MAX];

	struct policy *policy;
	struct policy_resolved res;
	int cgroot_fd;                  /* delegated parent */
	int wsroot_fd;                  /* workspace_root */
	int lockdir_fd;                 /* workspace_root/.locks, root 0700 */
	int uiddir_fd;                  /* workspace_root/<uid>, root 0755 */

	char id[CG_NAME_MAX];           /* "" until CREATE picked a name */
	int lock_fd;                    /* flock'ed <id>.lock: "a live helper owns <id>" */
	int leaf_fd, kill_fd, events_fd;
	bool leaf_created, ws_dir_created, ws_mounted;
	bool attached;
	bool poisoned;                  /* ATTACH may have moved a stranger: never kill */
	int ws_fd;                      /* O_PATH fd of the workspace root (tmpfs) */
	char ws_path[POLICY_PATH_MAX + 2 * CG_NAME_MAX];
	struct { uint64_t v[_POLICY_LIMIT_MAX]; } eff;
	char enforcement[256];

	int reply_fds[WIRE_FDS_MAX];    /* borrowed; sent with the next reply */
	size_t n_reply_fds;
};

typedef int (*op_fn)(struct session *s, struct wire_rd *rd, const int *fds,
		     struct wire_wr *body, char *msg, size_t msglen);

/* Handlers: 0 or -errno (sent back as the status, msg as the reason).  Never exit. */
int op_hello(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	     char *msg, size_t msglen);
int op_create(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	      char *msg, size_t msglen);
int op_attach(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	      char *msg, size_t msglen);
int op_kill(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	    char *msg, size_t msglen);
int op_destroy(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body,
	       char *msg, size_t msglen);

/* The dispatch state machine (dispatch.c).  Pure parts are exposed for unit tests. */
#define OP_ONCE         1u      /* revoke the op's bit after success */
#define OP_END          2u      /* the session ends after the reply */
#define OP_END_ON_FAIL  4u      /* ... or after a failed reply */
struct op {
	uint16_t type;
	unsigned bit;
	unsigned flags;
	unsigned enables;
	op_fn fn;
};
#define SESSION_START_PERMITTED 1u      /* HELLO only */
/* The op for type if it is allowed in state permitted; -EPROTO for an unknown type,
 * -EPERM for one out of order. */
int dispatch_lookup(unsigned permitted, uint16_t type, const struct op **ret);
/* The state after op finished with result r. */
unsigned dispatch_next(unsigned permitted, const struct op *op, int r);
/* Handle one datagram: parse, check, run, reply.  Returns 1 when the session is over
 * (exit status in *ret_status), 0 to continue.  Protocol violations call helper_fatal(). */
int dispatch(struct session *s, const uint8_t *buf, size_t n, int *fds, size_t nfds,
	     int *ret_status);

/* session.c */
void session_init(struct session *s, int sock);
/* Undo everything this session created, in reverse order; kills the sandbox unless
 * poisoned.  0 if nothing is left behind. */
int session_teardown(struct session *s, char *msg, size_t msglen);
/* Log, tear down, exit(1).  For protocol violations (OpenSSH fatal_f). */
_Noreturn void helper_fatal(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* op_mount.c */
/* Open <parent>/<name>, making it root-owned with exactly mode if missing (no window in
 * which the user owns it under that name). */
int dir_root_owned(int parent_fd, const char *name, mode_t mode, int *ret_fd);
int ws_prepare_dirs(struct session *s, char *msg, size_t msglen);
int ws_mount(struct session *s, char *msg, size_t msglen);
int ws_unmount(int uiddir_fd, const char *id);
/* Reclaim leftovers of s->uid whose helper is gone; count live sandboxes. */
int reclaim_and_count(struct session *s, unsigned *ret_live);
