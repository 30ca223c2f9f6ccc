/* SPDX-License-Identifier: MIT */
/* The cloned child (rlimit and user-cgroup mode), between clone and exec: only _exit, no
 * stdio.  It runs on a stack of its own in the supervisor's memory, while the supervisor
 * is suspended (CLONE_VFORK). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

#include "exit.h"
#include "isolate/isolate.h"
#include "log.h"
#include "macro.h"
#include "stage.h"
#include "supervise/output.h"
#include "supervise/sv-internal.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

_Static_assert(STAGE_EXIT_FAILURE == SC_EXIT_FAILURE && STAGE_EXIT_NOEXEC == SC_EXIT_NOEXEC &&
		       STAGE_EXIT_NOTFOUND == SC_EXIT_NOTFOUND,
	       "lib/stage.h's exit statuses");

/* ASan (make SANITIZE=1) keeps one record per thread of where its stack is, in memory the
 * child shares: the child switches it to its own stack and the supervisor back, by ASan's
 * fiber protocol; and the redzones the last child left on that stack are forgotten.
 * Otherwise ASan warns of an unknown stack and reports those redzones as overflows. */
#ifdef __SANITIZE_ADDRESS__
static void
asan_before_clone(char *stack_top, size_t size, void **fake)
{
	ASAN_UNPOISON_MEMORY_REGION(stack_top - size, size);
	__sanitizer_start_switch_fiber(fake, stack_top - size, size);
}

static void
asan_in_child(struct child_args *a)
{
	__sanitizer_finish_switch_fiber(NULL, &a->asan_bottom, &a->asan_size);
	a->asan_switched = true;
}

static void
asan_after_clone(struct child_args *a, void *fake)
{
	if (!a->asan_switched) /* the child never ran: finish the switch first */
		__sanitizer_finish_switch_fiber(NULL, &a->asan_bottom, &a->asan_size);
	__sanitizer_start_switch_fiber(NULL, a->asan_bottom, a->asan_size);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
}
#else
static void
asan_before_clone(char *stack_top, size_t size, void **fake)
{
}
static void
asan_in_child(struct child_args *a)
{
}
static void
asan_after_clone(struct child_args *a, void *fake)
{
}
#endif

/* Hand ourselves to spec->attach (user-cgroup mode: the user cgroup's cgroup.procs)
 * before anything of the command runs: nothing below may run outside the sandbox's
 * cgroup.  The pidfd is close-on-exec. */
static int
child_attach(const struct sv_spec *spec)
{
	int pidfd = pidfd_open(getpid(), 0);

	if (pidfd < 0)
		return log_error_errno(-errno, "pidfd_open: %m (Linux 5.3 or later is needed)");
	return spec->attach(pidfd, spec->userdata);
}

/* isolate_apply() as the stage's isolation (stage_tail()). */
static int
child_isolate(const void *ud, char *err, size_t errlen)
{
	const struct child_args *a = ud;

	return isolate_apply_notify(a->spec->iso, a->spec->plan, a->notify_sock, err, errlen);
}

static _noreturn_ void
child_run(struct child_args *a)
{
	const struct sv_spec *spec = a->spec;
	const struct child_prep *cp = a->cp;
	int r;

	/* Our own process group, so the whole tree can be signalled at once. */
	(void) setpgid(0, 0);
	/* Take the terminal's foreground, so the command reads it and ^C/^Z reach it.
	 * SIGTTOU is blocked (inherited mask), as tcsetpgrp() from a background group
	 * requires. */
	if (a->tty_fd >= 0)
		(void) tcsetpgrp(a->tty_fd, getpid());
	/* If sandcap is killed, the command dies with it rather than running unsupervised. */
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(SC_EXIT_FAILURE);

	/* --output-limit: stdout and stderr are the relay's pipes. */
	if (spec->relay != NULL && output_relay_child(spec->relay) < 0)
		_exit(SC_EXIT_FAILURE);
	/* What was closed when sandcap started is closed for the command (sv_note_stdio()
	 * put /dev/null there, so that nothing of ours took the number). */
	for (int i = 0; i < 3; i++)
		if (sv_stdio_was_closed(i))
			(void) close(i);

	/* In user-cgroup mode: into the sandbox's cgroup first.  A failure is the
	 * supervisor's to report (it printed why). */
	if (spec->attach != NULL) {
		r = child_attach(spec);
		if (r < 0) {
			a->attach_err = r;
			_exit(SC_EXIT_FAILURE);
		}
	}
	/* The wall clock and --timeout start here, in the sandbox's cgroup: the set-up below
	 * and the exec count. */
	*a->start_ms = mono_ms();
	stage_tail(&(const struct stage_tail){
		.argv = spec->argv,
		.envp = cp->envp,
		.chdir = spec->chdir,
		.rl = spec->rl,
		.n_rl = spec->n_rl,
		.keep_fds = spec->keep_fds,
		.msg_fd = a->msg_fd,
		.sig_todo = cp->sig_todo,
		.sig_ign = cp->sig_ign,
		.isolate = spec->iso != NULL ? child_isolate : NULL,
		.isolate_ud = a,
	});
}

static int
child_main(void *userdata)
{
	asan_in_child(userdata);
	child_run(userdata);
}

/* The child's stack: mapped once, with a guard page below it, so that an overflow faults
 * in the child instead of writing over the supervisor's memory. */
#define CHILD_STACK_SIZE (256 * 1024)
#define STACK_MAP        (MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE)

char *
sv_child_stack(void)
{
	static _run_data_ char *top;
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	char *base;

	if (top != NULL)
		return top;
	/* fd -1 with MAP_ANONYMOUS, as mmap(2) asks; cppcheck knows only file mappings. */
	// cppcheck-suppress invalidFunctionArg
	base = mmap(NULL, CHILD_STACK_SIZE + page, PROT_READ | PROT_WRITE, STACK_MAP, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base, page, PROT_NONE) < 0) {
		(void) munmap(base, CHILD_STACK_SIZE + page);
		return NULL;
	}
	top = base + page + CHILD_STACK_SIZE;
	return top;
}

/* perf: clone(CLONE_VM | CLONE_VFORK) rather than fork(): no copy of our page tables, no
 * copy-on-write faults in either process.  We are suspended until the child execs or
 * exits, so it has our memory to itself meanwhile.  Every signal is blocked across it:
 * none of our handlers may run on its stack.  The child sets environ to the command's
 * (stage_tail()), in our memory: ours is put back. */
pid_t
sv_child_clone(char *stack, struct child_args *a)
{
	char **our_environ = environ;
	sigset_t all, old;
	void *fake = NULL; /* ASan's (asan_before_clone()) */
	pid_t pid;
	int e;

	sigfillset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, &old);
	asan_before_clone(stack, CHILD_STACK_SIZE, &fake);
	pid = clone(child_main, stack, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
	e = errno;
	asan_after_clone(a, fake);
	environ = our_environ;
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
	return pid < 0 ? -e : pid;
}
