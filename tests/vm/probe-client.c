/* SPDX-License-Identifier: MIT */
/* probe-client: drive sandcap-helper through the front-end's client API, step by step, for
 * the VM scenarios.  Usage:
 *   probe-client [-m BYTES] [-c PCT] [-p PIDS] [-d BYTES] [-t MS] [-n] [-f LEVEL]
 *                [-a MODE] [-x] [-k] [-s SECONDS] [-P] [-N NET] [-o PORT] [-- CMD ARG...]
 *   -a child|notsocket|none   SPAWN the sandbox's process (default), SPAWN with /dev/null
 *        instead of a socket, or no SPAWN
 *   -x   do not DESTROY: just exit after the steps (the helper must tear down on EOF)
 *   -k   KILL before DESTROY
 *   -s N sleep N seconds after SPAWN (while the child runs `sleep` in the sandbox);
 *        SIGUSR1 ends the sleep early (a scenario that is done looking, on a busy machine
 *        where no fixed N is both long enough and short enough)
 *   -P   print the leaf's limit files (memory.max, ...) via the leaf dirfd
 *   -N host|proxy|loopback|none: the net mode asked for; -o the proxy port (wire value)
 *   -- CMD: the spawned process execs CMD (no seccomp, no Landlock: only what the helper
 *        enforces applies) and we wait for it before DESTROY; prints "status N"
 * Prints one "key value" line per fact (id, ws, memory, ..., spawn, pid, destroy); on a
 * refusal prints "error <step> <errno> <message>" and exits 2.  Exit 0 on success. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "stage.h"

static int
fail(const char *step, int r, const char *err)
{
	printf("error %s %d %s\n", step, -r, err);
	fflush(stdout);
	return 2;
}

static void
print_file(int dirfd, const char *name)
{
	char buf[256];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0) {
		printf("%s <%s>\n", name, strerror(errno));
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	printf("%s %s\n", name, buf);
}

/* SPAWN (mode "child": the stage socket; "notsocket": /dev/null instead), then send the
 * process its stage: argv with our environment, cwd and stdio, no isolation. */
static int
spawn(struct sc_session *s, const char *mode, char **cmd, pid_t *ret, char *err, size_t errlen)
{
	extern char **environ;
	struct stage_spec ss = { .parent = getpid(), .argv = cmd, .envp = environ };
	int pair[2], msg[2], fds[5], cwd, r;
	void *blob = NULL;
	size_t len = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0 ||
	    pipe2(msg, O_CLOEXEC) < 0 || (cwd = open(".", O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	if (strcmp(mode, "notsocket") == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		r = client_spawn(s, fd, ret, err, errlen);
		close(fd);
	} else {
		r = client_spawn(s, pair[1], ret, err, errlen);
	}
	close(pair[1]);
	if (r < 0)
		return r;
	fds[0] = msg[1];
	fds[1] = cwd;
	fds[2] = 0;
	fds[3] = 1;
	fds[4] = 2;
	r = stage_pack(&ss, &blob, &len);
	if (r == 0)
		r = stage_send(pair[0], blob, len, fds, 5);
	free(blob);
	close(pair[0]);
	close(msg[1]);
	close(msg[0]);
	close(cwd);
	if (r < 0)
		snprintf(err, errlen, "cannot send the stage: %s", strerror(-r));
	return r;
}

static void
on_usr1(int sig)
{
	(void) sig;     /* only to interrupt sleep() */
}

int
main(int argc, char **argv)
{
	struct sc_request req = { .net = POLICY_NET_HOST, .fs = POLICY_FS_NONE };
	struct sc_session s;
	char err[CLIENT_ERR_MAX] = "";
	const char *attach = "child";
	bool nodestroy = false, kill_first = false, print = false;
	int sleep_s = 0, opt, r;
	pid_t child = 0;

	while ((opt = getopt(argc, argv, "m:c:p:d:t:nf:a:xks:PN:o:")) != -1) {
		switch (opt) {
		case 'm': req.memory = strtoull(optarg, NULL, 10); break;
		case 'c': req.cpu_percent = strtoull(optarg, NULL, 10); break;
		case 'p': req.pids = strtoull(optarg, NULL, 10); break;
		case 'd': req.disk = strtoull(optarg, NULL, 10); break;
		case 't': req.timeout_ms = strtoull(optarg, NULL, 10); break;
		case 'n': req.net = POLICY_NET_NONE; break;
		case 'f': req.fs = (enum policy_fs) atoi(optarg); break;
		case 'a': attach = optarg; break;
		case 'x': nodestroy = true; break;
		case 'k': kill_first = true; break;
		case 's': sleep_s = atoi(optarg); break;
		case 'P': print = true; break;
		case 'N':
			if (policy_net_parse(optarg, &req.net) < 0)
				return 64;
			break;
		case 'o': req.proxy_port = (uint16_t) atoi(optarg); break;
		default: return 64;
		}
	}
	client_init(&s);
	r = client_open(&s, err, sizeof(err));
	if (r < 0)
		return fail("open", r, err);
	printf("helper %d\n", (int) s.helper_pid);
	{
		struct sigaction sa = { .sa_handler = on_usr1 };

		(void) sigaction(SIGUSR1, &sa, NULL);
	}
	r = client_create(&s, &req, err, sizeof(err));
	if (r < 0)
		return fail("create", r, err);
	printf("id %s\nws %s\nmemory %llu\ncpu %llu\npids %llu\ndisk %llu\ntimeout %llu\n"
	       "enforcement %s\n", s.id, s.ws_path,
	       (unsigned long long) s.effective.memory,
	       (unsigned long long) s.effective.cpu_percent,
	       (unsigned long long) s.effective.pids, (unsigned long long) s.effective.disk,
	       (unsigned long long) s.effective.timeout_ms, s.enforcement);
	if (print) {
		print_file(s.leaf_fd, "memory.max");
		print_file(s.leaf_fd, "memory.swap.max");
		print_file(s.leaf_fd, "memory.oom.group");
		print_file(s.leaf_fd, "cpu.max");
		print_file(s.leaf_fd, "pids.max");
	}
	fflush(stdout);

	if (strcmp(attach, "none") != 0) {
		/* sleep as a child of sh: the stage's PR_SET_PDEATHSIG kills the spawned process
		 * with us, the sleep (as any grandchild) stays for the helper, the reaper or
		 * the KILL to end. */
		char cmd[64], *sleep_argv[] = { "sh", "-c", cmd, NULL };

		snprintf(cmd, sizeof(cmd), "sleep %d & wait", sleep_s > 0 ? sleep_s * 10 : 30);
		r = spawn(&s, attach, optind < argc ? argv + optind : sleep_argv, &child, err,
			  sizeof(err));
		if (r < 0)
			return fail("spawn", r, err);
		printf("spawn ok\npid %d\n", (int) child);
	}
	fflush(stdout);
	if (child > 0 && optind < argc) {
		int st = 0;

		(void) waitpid(child, &st, 0);
		printf("status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		child = 0;
	}
	if (sleep_s > 0)
		sleep((unsigned) sleep_s);      /* SIGUSR1 (handled, set before SPAWN) ends it */
	if (nodestroy) {
		printf("exit without destroy\n");
		fflush(stdout);
		_exit(0);       /* no client_close(): like a killed sandcap, the helper sees EOF */
	}
	if (kill_first) {
		r = client_kill(&s, NULL, 0);
		if (r < 0)
			return fail("kill", r, "KILL refused");
		printf("kill ok\n");
	}
	{
		struct cg_usage u;

		if (cgstats_read(s.leaf_fd, s.ws_fd, &u) == 0)
			printf("pids_peak %llu\n", (unsigned long long) u.pids_peak);
	}
	r = client_destroy(&s, err, sizeof(err));
	if (child > 0)
		(void) waitpid(child, NULL, 0);
	if (r < 0)
		return fail("destroy", r, err);
	printf("destroy ok\n");
	return 0;
}
