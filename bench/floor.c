/* make bench: the floor of sandcap's rlimit mode on this machine, its process shape with none
 * of its own work.
 *
 *   bench-floor [--isolate] COMMAND [ARG...]
 *
 * An exec'd program that splits in two processes sharing its memory (clone(CLONE_VM); the
 * first, the keeper, waits for the second), the second (the supervisor) starts COMMAND in a
 * child with clone(CLONE_VM | CLONE_VFORK) and waits for it: the processes, clones and
 * execs of `sandcap run --no-cgroup -- COMMAND`, without option parsing, policy, plan,
 * control socket, timers, scans or report.  With --isolate the child first makes the
 * kernel calls every sandbox of sandcap's needs before its exec: no_new_privs, a Landlock
 * domain that scopes signals (ABI 6 or later, where the kernel has it) and sandcap's own
 * seccomp filter for a plain run, the build's template (frontend/isolate/seccomp-tpl.h) patched
 * with this program's pids.  The kernel's cost of loading a filter (its translation, JIT
 * and the per-system-call cache it precomputes) depends on the program's shape, not only
 * its length: a stand-in of the same length made of compares that match nothing took three
 * times as long to load as sandcap's on the same machine, and flattered sandcap's own work.
 * Built by bench/run.sh against the build's generated template data.  Exit status:
 * COMMAND's; 125 when no template fits (the bench then names the floor as not run). */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolate/seccomp-tpl.h"

#define STACK (256 * 1024)

static char **cmd;
static int isolate;
static struct protect_pids pids;        /* the keeper and the supervisor, as sandcap's */

static void
isolate_child(void)
{
	static struct sock_filter f[BPF_MAXINSNS];
	struct sock_fprog prog = { .filter = f };
	struct {
		uint64_t fs, net, scoped;
	} attr = { 0, 0, 2 /* LANDLOCK_SCOPE_SIGNAL */ };
	struct scrules_key k = { .net = POLICY_NET_HOST };
	size_t len;
	long abi;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(126);
	abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi >= 6) {
		int fd = (int) syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

		if (fd < 0 || syscall(SYS_landlock_restrict_self, fd, 0) < 0)
			_exit(126);
		close(fd);
		k.landlock_domain = k.landlock_signal = true;
	}
	/* sandcap's filter for this key (isolate.c, seccomp_key()): --net host, and a
	 * domain that scopes signals where the kernel has one. */
	if (sctpl_fill(&k, &pids, f, BPF_MAXINSNS, &len) < 0)
		_exit(125);
	prog.len = (unsigned short) len;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		_exit(126);
}

static int
child(void *unused)
{
	(void) unused;
	if (isolate)
		isolate_child();
	execvp(cmd[0], cmd);
	_exit(127);
}

static int
supervisor(void *stack)
{
	int st;
	pid_t c;

	pids.pid[pids.n++] = getpid();
	c = clone(child, (char *) stack + STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

	if (c < 0 || waitpid(c, &st, 0) != c)
		_exit(125);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

int
main(int argc, char **argv)
{
	char *stacks;
	int st;
	pid_t s;

	if (argc > 1 && strcmp(argv[1], "--isolate") == 0) {
		isolate = 1;
		argv++;
		argc--;
	}
	if (argc < 2)
		return 125;
	cmd = argv + 1;
	pids.pid[pids.n++] = getpid();
	pids.pgid = getpgrp();
	stacks = mmap(NULL, 2 * STACK, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stacks == MAP_FAILED)
		return 125;
	/* The supervisor on the first stack, its child on the second. */
	s = clone(supervisor, stacks + STACK, CLONE_VM | SIGCHLD, stacks + STACK);
	if (s < 0 || waitpid(s, &st, 0) != s)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 125;
}
