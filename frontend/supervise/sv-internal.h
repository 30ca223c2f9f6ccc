/* SPDX-License-Identifier: MIT */
/* The supervisor's internals, shared by its files in frontend/supervise/ and by nothing
 * else (the API is supervise.h):
 *   supervise.c  sv_run(): one run from start to end
 *   stdio.c      fds 0-2 closed when sandcap started
 *   spawn.c      starting the child: cloned (rlimit and user-cgroup mode) or made by the
 *                helper (cgroup mode)
 *   child.c      what the cloned child runs before its exec
 *   loop.c       the event loop: what it watches, timers, CPU budget, forwarded signals
 *   reap.c       reaping, and the end of the sandbox
 *   signals.c    signalling the whole sandbox, and end requests
 *   jobctl.c     the terminal and job control
 *   tree.c       finding and signalling descendants */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>

#include "supervise/supervise.h"
#include "supervise/unixgate.h"
#include "time-util.h"

struct sv_state {
	const struct sv_spec *spec;
	struct sv_outcome *out;
	pid_t pid; /* main process, also the process group id */
	int pidfd;
	int sigfd;
	int msg_fd;
	bool msg_done;
	int epfd;
	int tfd;        /* the timeout */
	int gfd;        /* the grace period after it, made when it fires */
	int cfd;        /* the next CPU-budget check */
	int extra_fd;   /* spec->open_extra()'s, -1: none */
	int tty_fd;     /* our controlling terminal on stdin, or -1 */
	bool tty_fg;    /* we were its foreground job at the start */
	bool have_tios; /* tios: its settings when the sandbox got it */
	struct termios tios;
	bool main_reaped;
	bool main_ended; /* seen ended (waitid), reaped or not */
	uint64_t start_ms;
	bool ugate_on; /* sv_ugate answers the command's connect() */
};

/* Answers the command's connect() to UNIX sockets (unixgate.h) when st->ugate_on.  Static
 * storage: a run without it never touches its pages. */
extern struct ugate sv_ugate;

/* tree.c.  A child of sandcap that is not part of the sandbox (the helper). */
extern pid_t sv_exclude_pid;
/* The main process once it has ended and until it is reaped: a zombie, whose children the
 * kernel gave to us (the subreaper) before its end could be seen, so it has nothing left to
 * signal or to list.  0 otherwise: once reaped, its pid may name another process. */
extern pid_t sv_ended_pid;
/* The supervisor's own pid, set by sv_run(); 0 in another process (the keeper). */
extern pid_t sv_self;
/* Children of sandcap other than the helper (zombies included). */
size_t sv_count_children(void);

/* What the parent works out before starting the child, so that the child only uses it
 * (perf: every page the child writes and all code it runs before its exec cost the
 * supervisor, which is suspended meanwhile). */
struct child_prep {
	char **envp;                /* the command's environment, PWD and TMPDIR set */
	uint64_t sig_todo, sig_ign; /* sig_nondefault(): the child's dispositions too */
};

/* What the child gets: it runs on its own stack in the supervisor's memory, which is
 * suspended until the child execs or exits (sv_child_clone()). */
struct child_args {
	const struct sv_spec *spec;
	const struct child_prep *cp;
	pid_t parent;
	int msg_fd, tty_fd;
	int notify_sock;    /* the filter's listener goes there (-1: none) */
	uint64_t *start_ms; /* the supervisor's: set once in the cgroup */
	int attach_err;     /* spec->attach()'s error, for the supervisor */
#ifdef __SANITIZE_ADDRESS__
	const void *asan_bottom; /* the supervisor's stack, for ASan (child.c) */
	size_t asan_size;
	bool asan_switched;
#endif
};

/* child.c.  The child's stack, mapped once with a guard page below it; NULL (errno set)
 * when it cannot be mapped. */
char *sv_child_stack(void);
/* Start the child on stack with clone(CLONE_VM | CLONE_VFORK): returns when it has exec'd
 * or exited, with its pid, or -errno. */
pid_t sv_child_clone(char *stack, struct child_args *a);

/* spawn.c.  Start the child: cloned (rlimit and user-cgroup mode) or made by the helper
 * (cgroup mode, spec->spawn), then watched (sv_watch_child()).  0 or -errno (said); on
 * failure no child is left. */
int sv_start_cloned(struct sv_state *st);
int sv_start_spawned(struct sv_state *st);
/* A child that was never released: kill and reap it, and pass r on. */
int sv_abort_child(pid_t pid, int r);

/* loop.c */
int sv_watch_child(struct sv_state *st);
void sv_loop(struct sv_state *st);
void sv_drain(int fd);

/* reap.c */
void sv_reap(struct sv_state *st, bool *ret_no_children);
void sv_read_child_msg(struct sv_state *st);
void sv_end_sandbox(struct sv_state *st);

/* signals.c */
int sv_setup_signals(void);
bool sv_is_end_signal(int sig);
bool sv_note_end_request(struct sv_state *st, int sig, bool by_control, pid_t pid, uid_t uid);
void sv_kill_ended(struct sv_state *st);

/* jobctl.c */
void sv_tty_take(struct sv_state *st);
void sv_tty_restore(struct sv_state *st);
void sv_give_terminal(struct sv_state *st);
void sv_job_stopped(struct sv_state *st, int stopsig);
