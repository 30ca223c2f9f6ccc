/* SPDX-License-Identifier: MIT */
/* The front-end's side of the helper protocol (docs/PROTOCOL.md): spawn sandcap-helper with one
 * end of a SOCK_SEQPACKET socketpair on its fd 3, then one call per request type.
 *
 * Order of use (anything else is a protocol violation and the helper tears down):
 *     client_open() -> client_create() -> client_spawn() -> [client_kill()] ->
 *     client_destroy()
 * client_close() may be called at any point (also after client_destroy()); closing the
 * socket makes the helper tear everything down on its own (EOF).
 *
 * Every function returns 0 or -errno.  When an err buffer is passed it receives a one-line
 * reason without the "sandcap: " prefix (callers print "sandcap: <what>: <err>"); when the helper
 * refused, err is the helper's own text (it names the ceiling and the policy section).
 * Errors the caller may want to tell apart:
 *     -ENOENT      the helper binary does not exist (client_open)
 *     -EPERM       the helper refused to start: no capabilities, no_new_privs, not in the
 *                  initial user namespace (client_open); or the policy refused (create:
 *                  user not allowed, over a ceiling, too many sandboxes)
 *     -ENOTSUP     no usable cgroup v2 / delegated parent / policy (client_open, create)
 *     -EPROTO      the helper broke the protocol or died
 *     -ETIMEDOUT   the helper did not answer within its deadline (CLIENT_*_DEADLINE_MS):
 *                  it was killed and s->dead is set
 * Not async-signal-safe; single-threaded use.  No function calls exit(). */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "deadline-record.h"
#include "policy.h"

#define CLIENT_ID_MAX  64
#define CLIENT_ERR_MAX 512

/* Limits as requested and, in the reply, as applied.  Units as enum policy_limit: bytes,
 * percent of one CPU, count, bytes, milliseconds.  In a request 0 means "not asked": the
 * helper applies the policy default (which may itself be 0 = unlimited).  In the effective
 * copy 0 means "not limited". */
struct sc_request {
	uint64_t memory;
	uint64_t cpu_percent;
	uint64_t pids;
	uint64_t disk;       /* tmpfs size of the workspace */
	uint64_t timeout_ms; /* checked against the ceiling; enforced by sandcap, not the helper */
	enum policy_net net; /* isolation sandcap will apply; checked against net_required */
	enum policy_fs fs;   /* checked against fs_required */
	uint16_t proxy_port; /* --net proxy: sandcap's proxy on 127.0.0.1; else 0 */
	uint32_t session_role;       /* enum wire_session_role: 0 for a sandbox of its own */
	char session[CLIENT_ID_MAX]; /* WIRE_SESSION_CALL: the session level's id */
};

struct sc_session {
	int sock;                    /* our end of the socketpair; -EBADF when closed */
	pid_t helper_pid;            /* 0 when no helper runs */
	char id[CLIENT_ID_MAX];      /* "<uid>-<16 hex>", the leaf cgroup's name */
	struct sc_request effective; /* what the helper applied (after CREATE) */
	int leaf_fd;                 /* O_RDONLY|O_DIRECTORY fd of the leaf cgroup */
	int ws_fd;                   /* O_PATH|O_DIRECTORY fd of the workspace root, opened by
					 * us from ws_path (the helper hands out none); -EBADF if
					 * that failed */
	uint32_t seq;                /* next request sequence number */
	unsigned rcv_deadline_ms;    /* the socket's SO_RCVTIMEO now (0: not set yet) */
	bool created, attached;
	bool dead;             /* a round trip timed out: the helper was killed */
	char enforcement[256]; /* helper's notes, e.g. "swap: not accounted" ("" = none) */
	char total_src[3][POLICY_SRC_MAX]; /* the sections that set total_memory, total_cpu,
					     * total_pids ("[limits]", "built-in") */
	char ws_path[PATH_MAX];            /* where the workspace is mounted */
};

/* The helper (and the reaper) kill a sandbox DEADLINE_BACKSTOP_MS after its timeout if it
 * still runs (lib/deadline-record.h, docs/PROTOCOL.md); sandcap keeps its grace period
 * below it. */

/* Deadlines of one round trip; a helper that misses one is killed. */
#define CLIENT_DEADLINE_MS       5000  /* KILL */
#define CLIENT_SETUP_DEADLINE_MS 10000 /* HELLO */
/* CREATE waits in the helper for the user's own per-user lock (at most 30 s,
 * helper/session.h USER_LOCK_MS, only behind that user's other helpers): a shorter
 * deadline killed helpers queued behind 20 concurrent runs of one user. */
#define CLIENT_LOCKED_DEADLINE_MS  40000
#define CLIENT_DESTROY_DEADLINE_MS 15000
/* A helper still busy (using CPU, or waiting for one) when a deadline passes gets it again,
 * up to this many deadlines in all (client.c, recv_reply); never for KILL. */
#define CLIENT_BUSY_ROUNDS 3

/* Initialise s to the closed state (all fds -EBADF).  Call before anything else. */
void client_init(struct sc_session *s);

/* Spawn the helper (path: $SANDCAP_HELPER if set and non-empty, else the compiled-in
 * SC_HELPER_PATH) with the socket on fd 3, then HELLO.  On success the helper is running
 * and has accepted the protocol version and the caller (policy loaded, user allowed at
 * all).  On failure the helper has been reaped and err says what is wrong and how to fix it
 * (the helper's refusal text when it sent one). */
int client_open(struct sc_session *s, char *err, size_t errlen);

/* CREATE: the helper checks req against the caller's ceilings, creates the leaf cgroup with
 * every limit written and mounts the workspace.  On success s->id, s->effective,
 * s->leaf_fd, s->ws_fd, s->ws_path and s->enforcement are set.  A refusal (-EPERM,
 * -EUSERS for too many sandboxes, -ENOTSUP) puts the helper's reason in err; the session
 * stays usable only for client_close(). */
int client_create(struct sc_session *s, const struct sc_request *req, char *err, size_t errlen);

/* SPAWN: the helper creates the sandbox's first process inside the leaf, as our child,
 * without capabilities; it waits for its stage (lib/stage.h) on stage_sock's peer, which
 * we keep.  Its pid in *ret_pid.  stage_sock is not consumed (close it after). */
int client_spawn(struct sc_session *s, int stage_sock, pid_t *ret_pid, char *err, size_t errlen);

/* KILL: SIGKILL every process in the leaf (cgroup.kill).  Returns once the helper has
 * written cgroup.kill, not when the processes are gone. */
int client_kill(struct sc_session *s, char *err, size_t errlen);

/* DESTROY: the helper kills what is left, waits for the leaf to empty, removes the cgroup,
 * unmounts and removes the workspace, replies and exits; we reap it.  Read the counters
 * (cgstats_read) BEFORE this call: afterwards leaf_fd and ws_fd are closed.  Returns 0 only
 * if everything was removed; on failure err says what was left behind (a later run of the
 * same user reclaims it). */
int client_destroy(struct sc_session *s, char *err, size_t errlen);

/* Close the socket and every fd, reap the helper (which tears down on EOF).  Idempotent;
 * safe after any failure. */
void client_close(struct sc_session *s);
