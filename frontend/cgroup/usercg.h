/* SPDX-License-Identifier: MIT */
/* user-cgroup mode: real cgroup limits without the admin's helper, in a transient scope
 * that the caller's own systemd user manager delegates to us (sd-bus StartTransientUnit,
 * Delegate=yes).  sandcap moves itself into the scope, then:
 *
 *     <scope>/supervisor   sandcap itself (the no-internal-process rule)
 *     <scope>/sandbox      the leaf: limits written here, the command attached here
 *
 * The user owns this subtree, so a sandboxed process could write its own limits or leave
 * the leaf: the limits bind runaway code, not hostile code, unless the child's Landlock
 * layer of cgprotect.c keeps the cgroup filesystem unwritable (docs/isolation.md).
 *
 * Every function returns 0 or -errno with a one-line reason (no "sandcap: " prefix) in
 * err.  Not async-signal-safe; single-threaded use. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup/client.h"

struct usercg {
	int scope_fd;                /* O_DIRECTORY of the scope; -EBADF when closed */
	int leaf_fd;                 /* O_DIRECTORY of <scope>/sandbox */
	int parent_fd;               /* a session's scope, the leaf's parent; else -EBADF */
	char leaf_name[32];          /* "sandbox", or a session's "call-N" */
	struct sc_request effective; /* the limits written (0 = not limited) */
	bool leaf_made;
	char unit[96];         /* "sandcap-<id>.scope" */
	char controllers[64];  /* enabled in the scope's subtree, e.g. "memory pids" */
	char enforcement[256]; /* notes for the report ("" = none) */
	char path[4096];       /* the scope's cgroup directory, absolute */
};

void usercg_init(struct usercg *u);

/* Ask the user manager for "sandcap-<id>.scope" with Delegate=yes holding this process,
 * wait (bounded) for the job, and move this process into <scope>/supervisor.
 * runtime_max_ms > 0 sets the scope's RuntimeMaxSec (a backstop the user manager enforces).
 * -ENOTSUP/-ENOENT/-ECONNREFUSED/-ETIMEDOUT: no usable user manager; -ELIBACC: there is
 * one, but libsystemd.so.0 cannot be loaded (sdbus.h); err says why. */
int usercg_open(struct usercg *u, const char *id, uint64_t runtime_max_ms, char *err,
		size_t errlen);

/* A session's scope, "sandcap-sess-<id>.scope" with Delegate=yes, holding pid (the
 * session's keeper, moved into <scope>/keeper), lim as the unit's own MemoryMax,
 * MemorySwapMax=0, TasksMax and CPUQuota (0: none), and RuntimeMaxSec runtime_max_ms (the
 * user manager stops the scope then, whoever is left).  The memory, pids and (when
 * delegated) cpu controllers are enabled for the calls' leaves below it. */
int usercg_open_session(struct usercg *u, const char *id, pid_t pid, const struct sc_request *lim,
			uint64_t runtime_max_ms, char *err, size_t errlen);

/* Make usercg_create()'s leaf path/leaf (a session's scope, a call's leaf) instead of
 * <scope>/sandbox: the call's processes count against the session's limits. */
int usercg_use_parent(struct usercg *u, const char *path, const char *leaf, char *err,
		      size_t errlen);

/* Enable the controllers, make the leaf and write the limits of req (0 = not limited).
 * -ENOTSUP when a limit asked for has no delegated controller (err names it). */
int usercg_create(struct usercg *u, const struct sc_request *req, char *err, size_t errlen);

/* Supervisor hooks (sv_spec.attach / kill_all); userdata is the struct usercg. */
int usercg_attach(int pidfd, void *userdata);
void usercg_kill(void *userdata);

/* Kill what is left, wait (bounded) for the leaf to empty and remove it.  The scope itself
 * is collected by the user manager once this process exits.  Read the counters first. */
int usercg_destroy(struct usercg *u, char *err, size_t errlen);

/* For sandcap doctor: is the caller's user manager reachable, and what does it delegate?
 * 0 with e.g. "systemd 252 user manager; controllers: memory pids" in info, or -errno with
 * the reason (as usercg_open would give it). */
int usercg_probe(char *info, size_t len);

/* Is cgroup v2 mounted at /sys/fs/cgroup?  Without it neither the helper nor user-cgroup
 * mode can work (sandcap doctor; the refusal of a cgroup limit names it first). */
bool cgroup2_mounted(void);

/* Close every fd (idempotent). */
void usercg_close(struct usercg *u);

/* ---- for usercg-session.c ---- */

/* Start u->unit holding pid, with lim as the unit's limits (NULL: none), open its cgroup
 * (u->path, u->scope_fd) and move pid into its child cgroup sub (the no-internal-process
 * rule: pid leaves the scope's own level). */
int usercg_open_scope(struct usercg *u, pid_t pid, const char *sub, const struct sc_request *lim,
		      uint64_t runtime_max_ms, char *err, size_t errlen);
/* Pick the controllers req needs from avail (dirfd's cgroup.controllers) into
 * u->controllers and enable them in dirfd's subtree; -ENOTSUP when a limit asked for has
 * no delegated controller.  where names dirfd in err. */
int usercg_enable_controllers(struct usercg *u, int dirfd, const char *where, const char *avail,
			      const struct sc_request *req, char *err, size_t errlen);

/* ---- pure parts, exposed for unit tests ---- */

/* The cgroup v2 path of /proc/self/cgroup text ("0::/a/b\n" -> "/a/b"); -ENOENT when the
 * text has no unified line, -ENAMETOOLONG when it does not fit. */
int usercg_parse_self_cgroup(const char *text, char *ret, size_t retlen);

/* The space-separated controller list to enable from what is available ("cpuset cpu io
 * memory pids") and what the leaf needs: memory and pids always (the usage figures), cpu
 * when asked.  Writes "+memory +pids [+cpu]" (only those available) to ret.  Sets
 * *ret_missing to the first controller a requested limit needs but is not available, or
 * NULL. */
void usercg_controllers(const char *available, const struct sc_request *req, char *ret,
			size_t retlen, const char **ret_missing);
