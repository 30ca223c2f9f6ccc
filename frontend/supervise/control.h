/* SPDX-License-Identifier: MIT */
/* The control socket of a running `sandcap run`, for `sandcap ps` and `sandcap kill`.
 *
 * Each running sandbox's sandcap listens on a SOCK_SEQPACKET socket $XDG_RUNTIME_DIR/sandcap/
 * <id>.sock when XDG_RUNTIME_DIR is an absolute path to a directory we own and only we may
 * write in (the sandcap
 * directory ours, mode 0700, checked on every use), else /tmp/sandcap-<id>.sock, made with
 * mode 0700 (the id is random: no other user can take the name first; a fixed shared path
 * could be squatted), removed at the end.  `sandcap ps` uses only sockets of
 * ours, mode 0700, in /tmp (and the per-run directories of ours that earlier versions made
 * there) and skips anyone else's.  Only peers of our own uid (SO_PEERCRED) are answered, and
 * only listeners of our own uid are asked, so
 * `sandcap ps` and `sandcap kill` never see or touch another user's sandboxes; no privilege
 * is needed (the helper is not asked).
 *
 * Requests and replies are single datagrams of text:
 *   "status"      -> one JSON object (see docs/report.md "sandcap ps --json")
 *   "kill <SIG>"  -> "ok" or "error: <reason>" (SIG 0: is it running?); the running sandcap signals every process of the
 *                    sandbox (SIGKILL: cgroup.kill through the helper) and then ends as usual,
 *                    tearing down the cgroup and the workspace. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define CONTROL_MSG_MAX 4096

/* Server side, used by sandcap run. */
struct control_ops {
	/* Write the status JSON object into buf (NUL-terminated). */
	int (*status)(void *userdata, char *buf, size_t len);
	/* Signal the whole sandbox (sig 0: only check that it runs); pid and uid are the
	 * requester's (SO_PEERCRED). */
	int (*kill)(void *userdata, int sig, pid_t pid, uid_t uid);
	void *userdata;
};

/* $XDG_RUNTIME_DIR/sandcap (created 0700 if missing and create is set).  -ENOENT when
 * XDG_RUNTIME_DIR is unset or not a directory of ours (or, without create, when the
 * directory does not exist); -EPERM if it exists but is not ours or is open to others. */
int control_rundir(char *buf, size_t len, int create);

/* Our uid, asked of the kernel once: sandcap never changes its credentials. */
uid_t control_uid(void);

/* The longest socket path control_listen() returns, its NUL included (sun_path's size). */
#define CONTROL_PATH_MAX 108

/* The path of run id's socket: $XDG_RUNTIME_DIR/sandcap/<id>.sock (the directory made if
 * missing), or /tmp/sandcap-<id>.sock without a usable XDG_RUNTIME_DIR.  Known before the
 * socket exists, so that the keeper can remove it should the supervisor be killed
 * (keeper.h).  -EPERM for an XDG directory that is not ours alone, -ENAMETOOLONG. */
int control_path(const char *id, char *ret_path, size_t pathlen);

/* Bind and listen on path (control_path()), mode 0700. */
int control_listen_at(const char *path, int *ret_fd);

/* control_path(), then control_listen_at(); *ret_path gets the socket's path, for
 * control_unlisten() at the end. */
int control_listen(const char *id, int *ret_fd, char *ret_path, size_t pathlen);

/* Call fn(id, status JSON, ud) for each of the caller's running sandboxes (every run dir
 * of ours); stale sockets (nobody listening) are removed.  Returns 0 or -errno. */
int control_for_each_sandbox(int (*fn)(const char *id, const char *status, void *ud), void *ud);

/* Remove the socket at path and, if it was in a run's own /tmp directory of an earlier
 * version, that directory. */
void control_unlisten(const char *path);

/* Accept one connection on listen_fd and serve its requests until it closes or errs.
 * Returns 0; never blocks for long (each connection gets a short receive timeout). */
int control_serve_one(int listen_fd, const struct control_ops *ops);

/* Client side: send one request to <rundir>/<id>.sock and read the reply. */
int control_request(const char *id, const char *req, char *reply, size_t replylen);
