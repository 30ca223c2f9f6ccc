/* SPDX-License-Identifier: MIT */
/* The sandboxed process's last steps before the command's exec, in one place for the two
 * processes that run them:
 *
 * - sandcap's own child in rlimit and user-cgroup mode (frontend/supervise/supervise.c), which runs
 *   stage_tail() on sandcap's memory;
 * - in cgroup mode, the process the helper creates inside the leaf (helper/op_spawn.c,
 *   PROTOCOL.md 3.3), which first gives up every capability, then receives the stage from
 *   sandcap as one message (stage_recv()), checks it (stage_unpack()) and runs
 *   stage_spawned(), which ends in stage_tail().
 *
 * Nothing here runs with a capability: the helper's process calls stage_recv() only after
 * caps_drop_all().  The wire format is sandcap's to its own child (both the caller's), so a
 * malformed stage only hurts the caller; it is still checked in full, and stage_unpack() is
 * pure, for the fuzzer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>

#include "macro.h"

/* The exit status of a child that could not exec: frontend/exit.h's SC_EXIT_* (125, 126, 127). */
#define STAGE_EXIT_FAILURE  125
#define STAGE_EXIT_NOEXEC   126
#define STAGE_EXIT_NOTFOUND 127

/* What the child sends back through its close-on-exec pipe when it cannot exec.  Smaller
 * than PIPE_BUF, so the write is atomic. */
enum { STAGE_SETUP = 1, STAGE_EXEC = 2 };
struct stage_msg {
	int stage;
	int err;
	char msg[200];
};

struct stage_rlimit {
	int resource; /* RLIMIT_* */
	uint64_t soft, hard;
	const char *option; /* "--as", for messages */
};

/* The steps every sandboxed child takes last, from no_new_privs to the exec. */
struct stage_tail {
	char **argv;
	char **envp;       /* becomes environ: execvp() searches its PATH */
	const char *chdir; /* NULL: stay */
	const struct stage_rlimit *rl;
	size_t n_rl;
	bool keep_fds;              /* else fds >= 3 are made close-on-exec */
	int msg_fd;                 /* stage_fail()'s pipe */
	uint64_t sig_todo, sig_ign; /* sig_nondefault(): reset before anything else */
	/* Landlock and seccomp, after no_new_privs and the chdir; < 0 fails the stage with the
	 * message in err. */
	int (*isolate)(const void *ud, char *err, size_t errlen);
	const void *isolate_ud;
};

/* Write a stage_msg to fd and _exit: 126/127 for STAGE_EXEC (127 for ENOENT), else 125. */
_noreturn_ void stage_fail(int fd, int stage, int err, const char *fmt, ...) _printf_(4, 5);

/* Load the seccomp program fp with a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER) and send
 * the listener over notify_sock (one byte, SCM_RIGHTS) to the supervisor, which answers
 * what the filter notifies; the listener is closed here, notify_sock too.  Returns 0 or
 * -errno with a message in err. */
struct sock_fprog;
int stage_load_notify_filter(const struct sock_fprog *fp, int notify_sock, char *err,
			     size_t errlen);

/* Run the tail: reset the signals of sig_todo, no_new_privs, chdir, isolate, environ, the
 * stop signals to a no-op handler until the exec, an empty signal mask, fds >= 3
 * close-on-exec (unless keep_fds), the rlimits, execvp.  Never returns. */
_noreturn_ void stage_tail(const struct stage_tail *t);

/* ---- cgroup mode: the stage sandcap sends to the helper's process ---- */

#define STAGE_MAGIC      0x53435331u /* "SCS1" */
#define STAGE_F_KEEP_FDS (1u << 0)
#define STAGE_F_TTY      (1u << 1) /* a terminal fd follows the stdio fds */
#define STAGE_F_CHDIR    (1u << 2) /* a --chdir string follows the environment */
/* sandcap's fd 0, 1 or 2 is closed: so is the command's (its slot holds another fd). */
#define STAGE_F_CLOSED(i) (1u << (3 + (i)))
/* The filter has a listener (SECCOMP_RET_USER_NOTIF): sent back on the stage socket. */
#define STAGE_F_NOTIFY (1u << 6)
#define STAGE_F_ALL                                                                               \
	(STAGE_F_KEEP_FDS | STAGE_F_TTY | STAGE_F_CHDIR | STAGE_F_CLOSED(0) | STAGE_F_CLOSED(1) | \
	 STAGE_F_CLOSED(2) | STAGE_F_NOTIFY)
#define STAGE_RULESETS_MAX 2   /* Landlock domains: isolation, cgroup fs */
#define STAGE_KEEP_MAX     200 /* --keep-fds: descriptors passed on */
#define STAGE_RLIMITS_MAX  16
#define STAGE_ARGS_MAX     (1u << 20) /* argv and envp strings, each */
#define STAGE_FD_MAX       (1 << 20)  /* a kept descriptor's number is below this */
/* A blob up to this size travels in the message itself; a larger one (a large environment)
 * in a memfd, the message's first fd. */
#define STAGE_INLINE_MAX (48 * 1024)
/* Fds of the message: [the blob's memfd, when not inline], msg pipe, cwd, stdin, stdout,
 * stderr, [tty], rulesets, kept.  The message's u32 counts them with the blob's slot. */
#define STAGE_FIXED_FDS 6
#define STAGE_FDS_MAX   (STAGE_FIXED_FDS + 1 + STAGE_RULESETS_MAX + STAGE_KEEP_MAX)

/* The blob's head; then rl[n_rl] (struct stage_wire_rl), keep[n_keep] (uint32_t target fd
 * numbers), prog[prog_len] (struct sock_filter), then NUL-terminated strings: argv,
 * envp, the --chdir path (STAGE_F_CHDIR), and each rlimit's option name. */
struct stage_wire {
	uint32_t magic;
	uint32_t flags;
	int32_t parent;       /* sandcap: the process's parent, checked after PDEATHSIG */
	uint32_t personality; /* sandcap's (not 0xffffffff, the query) */
	uint32_t n_argv, n_envp, n_rl, n_keep, n_rulesets, prog_len;
};
struct stage_wire_rl {
	int32_t resource;
	uint32_t pad; /* 0 */
	uint64_t soft, hard;
};

/* What stage_pack() takes and stage_unpack() gives back.  The fds are not in the blob: they
 * travel in the same message (stage_send()/stage_recv()). */
struct stage_spec {
	uint32_t flags;
	pid_t parent;
	/* sandcap's personality(2): the helper's secure exec cleared its ADDR_NO_RANDOMIZE and
	 * kin (PER_CLEAR_ON_SETID), which the command would otherwise lose. */
	uint32_t personality;
	char **argv; /* NULL-terminated */
	char **envp; /* NULL-terminated */
	const char *chdir;
	struct stage_rlimit rl[STAGE_RLIMITS_MAX];
	size_t n_rl;
	uint32_t keep[STAGE_KEEP_MAX]; /* the numbers the kept fds get in the command */
	size_t n_keep;
	size_t n_rulesets;
	const struct sock_filter *prog; /* NULL: no filter */
	size_t prog_len;
};

/* Serialize s into a new buffer (*ret, *ret_len; free()).  0 or -E2BIG/-EINVAL/-ENOMEM. */
int stage_pack(const struct stage_spec *s, void **ret, size_t *ret_len);

/* Check blob and fill *s with pointers into it (chdir, option names, prog) and into vec,
 * where argv and then envp are placed, each NULL-terminated.  Pure: no allocation, no I/O.
 * 0, -EBADMSG for any malformed blob, -ENOSPC when vec_cap is below stage_vec_need(). */
int stage_unpack(const void *blob, size_t len, struct stage_spec *s, char **vec, size_t vec_cap);

/* The number of vec slots stage_unpack() needs for blob (its argv and envp, each with its
 * NULL), or 0 when blob's head is malformed. */
size_t stage_vec_need(const void *blob, size_t len);

/* sandcap: send blob (in the message up to STAGE_INLINE_MAX bytes, else in a memfd the
 * receiver reads) and the fds (STAGE_FIXED_FDS, then the optional
 * ones in the order above) on sock as one message.  0 or -errno. */
int stage_send(int sock, const void *blob, size_t len, const int *fds, size_t n_fds);

/* The helper's process, without capabilities: receive the stage on sock, place its fds,
 * set the process up as sandcap's child did (process group, terminal, PDEATHSIG, stdio,
 * working directory; the umask is the caller's already) and run stage_tail() with the
 * rulesets and the seccomp program as isolation, resetting the caught signals of sig_todo
 * (the process's only non-default dispositions: the caller knows them).  A malformed stage or failed step exits 125, reported
 * through the msg pipe when it already has one. */
_noreturn_ void stage_spawned(int sock, uint64_t sig_todo);
