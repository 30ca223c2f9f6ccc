/* SPDX-License-Identifier: MIT */
/* Starting the sandbox's first process: cloned by sandcap (rlimit and user-cgroup mode,
 * child.c), or made by the helper in the leaf and sent its stage (cgroup mode). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolate/isolate.h"
#include "log.h"
#include "macro.h"
#include "sigreset.h"
#include "stage.h"
#include "supervise/env.h"
#include "supervise/output.h"
#include "supervise/sv-internal.h"

int
sv_abort_child(pid_t pid, int r)
{
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
	return r;
}

/* The command's environment (spec->envp, or ours) with PWD and TMPDIR set: in *ret, which
 * is *ret_own (to free) when it had to be built.  0 or -errno (said). */
static int
command_env(const struct sv_spec *spec, char ***ret_own, char ***ret)
{
	char **base = spec->envp != NULL ? spec->envp : environ;
	int r;

	*ret = base;
	r = env_for_exec(base, spec->chdir != NULL && spec->chdir[0] == '/' ? spec->chdir : NULL,
			 spec->tmpdir, ret_own);
	if (r < 0)
		return log_error_errno(r, "cannot build the command's environment: %m");
	if (*ret_own != NULL)
		*ret = *ret_own;
	return 0;
}

/* ---- rlimit and user-cgroup mode: the cloned child ---- */

/* plan->unix_notify: the socket the child sends its filter's listener on; our end goes to
 * sv_ugate, the child's end in *ret_theirs.  0 or -errno (said). */
static int
ugate_prepare(struct sv_state *st, int *ret_theirs)
{
	int pair[2], r;

	*ret_theirs = -EBADF;
	if (st->spec->plan == NULL || !st->spec->plan->unix_notify)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return log_error_errno(-errno, "socketpair: %m");
	r = ugate_start(&sv_ugate, pair[0], sv_self, st->spec->exclude_pid);
	sv_ugate.scope_abstract = st->spec->plan->landlock_scope;
	st->ugate_on = true;
	if (r < 0) {
		(void) close(pair[1]);
		return log_error_errno(r, "cannot answer the sandbox's connect() (seccomp user "
					  "notification): %m; pass --unix host");
	}
	*ret_theirs = pair[1];
	return 0;
}

/* Clone the child (child.c), which in user-cgroup mode first hands itself to spec->attach,
 * so the command never runs outside the sandbox's cgroup.  Then watch it
 * (sv_watch_child()).  On failure the child is killed and reaped. */
int
sv_start_cloned(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	_cleanup_close_ int msg_w = -EBADF, notify_w = -EBADF;
	_cleanup_free_ char **envp = NULL;
	struct child_prep cp;
	struct child_args a;
	char *stack = sv_child_stack();
	int fds[2], r;
	pid_t pid;

	if (stack == NULL)
		return log_error_errno(-errno, "cannot map the child's stack: %m");
	r = command_env(spec, &envp, &cp.envp);
	if (r < 0)
		return r;

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return log_error_errno(-errno, "pipe: %m");
	st->msg_fd = fds[0];
	msg_w = fds[1];

	r = ugate_prepare(st, &notify_w);
	if (r < 0)
		return r;
	cp.sig_todo = sig_nondefault(&cp.sig_ign);
	a = (struct child_args){ .spec = spec,
				 .cp = &cp,
				 .parent = sv_self,
				 .msg_fd = msg_w,
				 .tty_fd = st->tty_fg ? st->tty_fd : -1,
				 .start_ms = &st->start_ms,
				 .notify_sock = notify_w };
	pid = sv_child_clone(stack, &a);
	if (pid < 0)
		return log_error_errno(pid, "cannot start the sandbox's process: %s",
				       strerror(-pid));
	msg_w = safe_close(msg_w);
	notify_w = safe_close(notify_w);
	if (spec->relay != NULL)
		output_relay_parent(spec->relay);
	st->pid = pid;
	if (a.attach_err < 0)
		return sv_abort_child(pid, a.attach_err);
	/* The child sets it once in its cgroup; one that failed before that ran from now. */
	if (st->start_ms == 0)
		st->start_ms = mono_ms();
	return sv_watch_child(st);
}

/* ---- cgroup mode: the child the helper makes (SPAWN) ---- */

/* --keep-fds: the numbers of our fds >= 3 that an exec would pass on (not close-on-exec),
 * which the helper's process cannot inherit from us: they travel with the stage. */
static int
kept_fds(struct stage_spec *ss)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int r = 0;

	if (d == NULL)
		return log_error_errno(-errno, "--keep-fds: cannot list /proc/self/fd: %m");
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		int fl;

		if (end == de->d_name || *end != '\0' || fd < 3 || fd == dirfd(d))
			continue;
		fl = fcntl((int) fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC) != 0)
			continue;
		if (ss->n_keep == STAGE_KEEP_MAX) {
			r = log_error_errno(
				-EMFILE,
				"--keep-fds: more than %d open descriptors to "
				"pass on in cgroup mode; close some, or use --no-cgroup",
				STAGE_KEEP_MAX);
			break;
		}
		ss->keep[ss->n_keep++] = (uint32_t) fd;
	}
	(void) closedir(d);
	return r;
}

/* What the helper's process needs from us, in ss and rulesets (closed by the caller). */
static int
spawn_prepare(const struct sv_state *st, char **envp, struct stage_spec *ss, int rulesets[2],
	      size_t *n_rulesets)
{
	const struct sv_spec *spec = st->spec;
	char err[256] = "";
	int r;

	struct rlimit stack;

	/* What the helper's secure exec took from what it passes on (the kernel's
	 * begin_new_exec()): the soft stack limit, capped at 8 MiB, and the personality flags
	 * of PER_CLEAR_ON_SETID.  Ours go back first; an asked --stack comes after. */
	if (getrlimit(RLIMIT_STACK, &stack) < 0)
		return log_error_errno(-errno, "getrlimit: %m");
	*ss = (struct stage_spec){ .parent = sv_self,
				   .argv = spec->argv,
				   .personality = (uint32_t) personality(0xffffffff),
				   .envp = envp,
				   .chdir = spec->chdir,
				   .n_rl = spec->n_rl + 1 };
	ss->rl[0] = (struct stage_rlimit){ .resource = RLIMIT_STACK,
					   .soft = stack.rlim_cur,
					   .hard = stack.rlim_max,
					   .option = "the stack limit sandcap runs with" };
	if (spec->chdir != NULL)
		ss->flags |= STAGE_F_CHDIR;
	if (spec->keep_fds)
		ss->flags |= STAGE_F_KEEP_FDS;
	if (st->tty_fg)
		ss->flags |= STAGE_F_TTY;
	if (spec->n_rl + 1 > STAGE_RLIMITS_MAX)
		return log_error_errno(-E2BIG, "too many limits");
	memcpy(ss->rl + 1, spec->rl, spec->n_rl * sizeof(spec->rl[0]));
	if (spec->keep_fds) {
		r = kept_fds(ss);
		if (r < 0)
			return r;
	}
	if (spec->iso != NULL) {
		r = isolate_rulesets(spec->iso, spec->plan, rulesets, n_rulesets, err, sizeof(err));
		if (r >= 0)
			r = isolate_seccomp_program(spec->iso, spec->plan, &ss->prog, &ss->prog_len,
						    err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "sandcap: isolation: %s\n",
				strneq(err, "sandcap: ", 9) ? err + 9 : err);
			return r;
		}
		ss->n_rulesets = *n_rulesets;
	}
	return 0;
}

/* The helper's process's channels: the message pipe (our end in st->msg_fd, its in
 * *ret_msg_w), the directory it starts in, and the stage socket (ours, theirs).  What is
 * made before a failure is in the ret_ fds, for the caller to close. */
static int
spawn_channels(struct sv_state *st, int *ret_msg_w, int *ret_cwd, int *ret_ours, int *ret_theirs)
{
	int pair[2];

	*ret_cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*ret_cwd < 0 || pipe2(pair, O_CLOEXEC | O_NONBLOCK) < 0)
		return log_error_errno(-errno, "cannot prepare the sandbox's process: %m");
	st->msg_fd = pair[0];
	*ret_msg_w = pair[1];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return log_error_errno(-errno, "socketpair: %m");
	*ret_ours = pair[0];
	*ret_theirs = pair[1];
	return 0;
}

/* The stage's fds after the blob (lib/stage.h): msg, cwd, stdin, stdout, stderr, [tty],
 * rulesets, kept.  A closed fd 0-2 of ours is flagged, its slot filled with msg_w. */
static size_t
spawn_fds(const struct sv_state *st, struct stage_spec *ss, int msg_w, int cwd, const int *rulesets,
	  int *fds)
{
	const struct sv_spec *spec = st->spec;
	size_t n = 0;

	fds[n++] = msg_w;
	fds[n++] = cwd;
	for (int i = 0; i < 3; i++) {
		int fd = spec->relay != NULL && i > 0 ? spec->relay->child_fd[i - 1] : i;

		/* Closed when sandcap started (sv_note_stdio(): /dev/null holds the number
		 * since, so every fd here is open): closed for the command too, relayed or
		 * not. */
		if (sv_stdio_was_closed(i)) {
			ss->flags |= STAGE_F_CLOSED(i);
			fd = msg_w;
		}
		fds[n++] = fd;
	}
	if (st->tty_fg)
		fds[n++] = st->tty_fd;
	for (size_t i = 0; i < ss->n_rulesets; i++)
		fds[n++] = rulesets[i];
	for (size_t i = 0; i < ss->n_keep; i++)
		fds[n++] = (int) ss->keep[i];
	return n;
}

/* The stage socket brought the filter's listener back (STAGE_F_NOTIFY): sv_ugate answers
 * on it.  0 or -errno (said). */
static int
spawn_gate(struct sv_state *st, int sock)
{
	const struct sv_spec *spec = st->spec;
	int r;

	st->ugate_on = true;
	r = ugate_start(&sv_ugate, sock, sv_self, spec->exclude_pid);
	sv_ugate.scope_abstract = spec->plan != NULL && spec->plan->landlock_scope;
	if (r < 0)
		return log_error_errno(r, "cannot answer the sandbox's connect(): %m; "
					  "pass --unix host");
	return 0;
}

/* The helper creates the child in the leaf (SPAWN), as our child and without capabilities,
 * and we send it its stage (lib/stage.h): everything is prepared first, so that nothing
 * but the send follows the spawn.  The command never runs outside the leaf: the process
 * was made in it, and no number is ever written to cgroup.procs. */
int
sv_start_spawned(struct sv_state *st)
{
	const struct sv_spec *spec = st->spec;
	_cleanup_close_ int msg_w = -EBADF, cwd = -EBADF, ours = -EBADF, theirs = -EBADF;
	_cleanup_free_ char **own_envp = NULL;
	_cleanup_free_ void *blob = NULL;
	int rulesets[STAGE_RULESETS_MAX] = { -EBADF, -EBADF }, fds[STAGE_FDS_MAX];
	size_t n_rulesets = 0, len = 0, n;
	struct stage_spec ss = { .flags = 0 };
	char **envp;
	pid_t pid = 0;
	int r;

	r = command_env(spec, &own_envp, &envp);
	if (r < 0)
		return r;
	r = spawn_prepare(st, envp, &ss, rulesets, &n_rulesets);
	if (r >= 0)
		r = spawn_channels(st, &msg_w, &cwd, &ours, &theirs);
	if (r < 0)
		goto out;
	if (spec->plan != NULL && spec->plan->unix_notify && ss.prog_len > 0)
		ss.flags |= STAGE_F_NOTIFY;
	n = spawn_fds(st, &ss, msg_w, cwd, rulesets, fds);
	r = stage_pack(&ss, &blob, &len);
	if (r < 0) {
		r = log_error_errno(r, "cannot encode the sandbox's start: %m");
		goto out;
	}

	r = spec->spawn(theirs, &pid, spec->userdata);
	if (r < 0)
		goto out;
	st->pid = pid;
	st->start_ms = mono_ms();
	/* Its own process group from now on, as it makes itself: a signal to the group
	 * before it got there would be lost. */
	(void) setpgid(pid, pid);
	theirs = safe_close(theirs);
	r = stage_send(ours, blob, len, fds, n);
	if (r < 0) {
		r = sv_abort_child(pid,
				   log_error_errno(r, "cannot start the sandbox's process: %m"));
		goto out;
	}
	if ((ss.flags & STAGE_F_NOTIFY) != 0) {
		r = spawn_gate(st, TAKE_FD(ours));
		if (r < 0) {
			r = sv_abort_child(pid, r);
			goto out;
		}
	}
	if (spec->relay != NULL)
		output_relay_parent(spec->relay);
	r = sv_watch_child(st);
out:
	for (size_t i = 0; i < n_rulesets; i++)
		(void) close(rulesets[i]);
	return r;
}
