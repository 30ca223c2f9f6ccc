/* SPDX-License-Identifier: MIT */
/* probe-net: try every way out to the network that --net none must close, one line per
 * attempt: "NAME: OK" or "NAME: ERRNO_NAME".  Used by t-isolate.sh and the VM scenario
 * 40-seccomp-net.sh, run inside `sandcap run --net none`.
 *
 *   probe-net [--port N] [--unix PATH] [--abstract NAME] [--fd N] [--pid PID]
 *   probe-net x32 | i386          (expected to be killed by SIGSYS under the filter)
 *   probe-net ia32-probe          (run WITHOUT sandcap: does this kernel take int 0x80?
 *                                  exit 0 "ia32: yes", 3 "ia32: no (...)", other: broken)
 *
 * --port: a TCP and UDP listener on 127.0.0.1 started by the test outside the sandbox.
 * --unix: a pathname UNIX stream socket listening outside; --abstract: the same in the
 * abstract namespace.  --fd: an unconnected AF_INET stream socket inherited from outside
 * (tests Landlock's connect right independently of seccomp).  --pid: a process outside
 * the sandbox, same user, to try ptrace/process_vm_readv on. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void
say(const char *name, long r)
{
	if (r >= 0)
		printf("%s: OK\n", name);
	else
		printf("%s: %s\n", name, strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fflush(stdout);
}

static int
try_socket(int dom, int type, int proto)
{
	int fd = socket(dom, type | SOCK_CLOEXEC, proto);

	if (fd >= 0)
		close(fd);
	return fd;
}

static void
connect_inet(const char *name, int type, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd, r;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		say(name, -1);
		return;
	}
	if (type == SOCK_DGRAM)
		r = (int) sendto(fd, "x", 1, 0, (struct sockaddr *) &sa, sizeof(sa));
	else
		r = connect(fd, (struct sockaddr *) &sa, sizeof(sa));
	say(name, r);
	close(fd);
}

static socklen_t
unix_addr(struct sockaddr_un *sa, const char *path, int abstract)
{
	size_t len = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (len > sizeof(sa->sun_path) - 2)
		len = sizeof(sa->sun_path) - 2;
	memcpy(sa->sun_path + (abstract ? 1 : 0), path, len);
	return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len + 1);  /* NUL, or the leading NUL of an abstract name */
}

static void
connect_unix(const char *name, const char *path, int abstract)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path, abstract);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		say(name, -1);
		return;
	}
	say(name, connect(fd, (struct sockaddr *) &sa, len));
	close(fd);
}

/* A datagram socketpair can be re-connected to any datagram socket file. */
static void
dgram_pair_unix(const char *name, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path, 0);
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		say(name, -1);
		return;
	}
	say(name, sendto(sv[0], "x", 1, 0, (struct sockaddr *) &sa, len));
	close(sv[0]);
	close(sv[1]);
}

static void
try_clone_newuser(void)
{
	/* The raw system call, so the flags reach the kernel exactly as given. */
	long pid = syscall(SYS_clone, (unsigned long) (CLONE_NEWUSER | SIGCHLD), NULL, NULL,
			   NULL, 0);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		(void) waitpid((pid_t) pid, NULL, 0);
	say("clone_newuser", pid);
}

/* Does this kernel run the i386 system-call ABI (IA-32 emulation)?  A kernel built without
 * it, or booted with ia32_emulation=0, answers int 0x80 with a fault (SIGSEGV), with or
 * without a seccomp filter, so the i386 test cannot show anything there.  The int 0x80
 * runs in a child with SIGSEGV/SIGBUS/SIGILL set to the default action by the raw system
 * call, so that a sanitizer's handler (build-san) neither catches nor reports the fault:
 * the probe's own fault is no finding in our code. */
static int
probe_ia32(void)
{
#if defined(__x86_64__)
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} dfl = { SIG_DFL, 0, NULL, 0 };
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL };
	int status;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("probe-net: fork");
		return 2;
	}
	if (child == 0) {
		long ret, want = syscall(SYS_getpid);

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (syscall(SYS_rt_sigaction, sigs[i], &dfl, NULL, sizeof(dfl.mask)) < 0)
				_exit(2);
		/* getpid is 20 in the i386 table. */
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		_exit(ret == want ? 0 : 4);
	}
	if (waitpid(child, &status, 0) < 0) {
		perror("probe-net: waitpid");
		return 2;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ia32: yes\n");
		return 0;
	}
	if (WIFSIGNALED(status)) {
		printf("ia32: no (int 0x80 ends with SIG%s without sandcap: this kernel has no "
		       "IA-32 emulation, or it is switched off)\n",
		       sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
		return 3;
	}
	printf("ia32: broken probe (child exit %d)\n", WEXITSTATUS(status));
	return 2;
#else
	printf("ia32: no (not an x86_64 machine)\n");
	return 3;
#endif
}

int
main(int argc, char **argv)
{
	const char *unix_path = NULL, *abstract = NULL;
	int port = 0, infd = -1, pid = 0, sv[2];
	long r;

	if (argc == 2 && strcmp(argv[1], "x32") == 0) {
		/* socket(AF_INET, SOCK_STREAM, 0) through the x32 ABI (__X32_SYSCALL_BIT). */
		r = syscall(0x40000000L | 41, AF_INET, SOCK_STREAM, 0);
		say("x32_socket", r);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "ia32-probe") == 0)
		return probe_ia32();
	if (argc == 2 && strcmp(argv[1], "i386") == 0) {
#if defined(__x86_64__)
		/* socketcall(SYS_SOCKET) through int 0x80: the i386 ABI from a 64-bit process.
		 * The argument array must be addressable with 32 bits: use the stack only if
		 * it is; else a static (PIE data is usually high too, so this may be EFAULT,
		 * which still proves the call reached the kernel). */
		static unsigned int args[3] = { AF_INET, SOCK_STREAM, 0 };
		long ret;

		__asm__ volatile("int $0x80"
				 : "=a"(ret)
				 : "a"(102L), "b"(1L), "c"((long) (unsigned long) args)
				 : "memory");
		errno = ret < 0 ? (int) -ret : 0;
		say("i386_socketcall", ret < 0 ? -1 : ret);
#else
		printf("i386_socketcall: not x86_64\n");
#endif
		return 0;
	}

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--unix") == 0 && i + 1 < argc)
			unix_path = argv[++i];
		else if (strcmp(argv[i], "--abstract") == 0 && i + 1 < argc)
			abstract = argv[++i];
		else if (strcmp(argv[i], "--fd") == 0 && i + 1 < argc)
			infd = atoi(argv[++i]);
		else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc)
			pid = atoi(argv[++i]);
		else {
			fprintf(stderr, "probe-net: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}

	say("socket_tcp4", try_socket(AF_INET, SOCK_STREAM, 0));
	say("socket_udp4", try_socket(AF_INET, SOCK_DGRAM, 0));
	say("socket_tcp6", try_socket(AF_INET6, SOCK_STREAM, 0));
	say("socket_udp6", try_socket(AF_INET6, SOCK_DGRAM, 0));
	say("socket_netlink", try_socket(AF_NETLINK, SOCK_RAW, 0));
	/* AF_INET with junk in the high 32 bits of the domain argument. */
	r = syscall(SYS_socket, (1UL << 32) | AF_INET, SOCK_STREAM, 0);
	if (r >= 0)
		close((int) r);
	say("socket_tcp4_highbits", r);
	say("socket_unix", try_socket(AF_UNIX, SOCK_STREAM, 0));
	r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
	if (r == 0) {
		char c = 0;

		r = write(sv[0], "y", 1) == 1 && read(sv[1], &c, 1) == 1 && c == 'y' ? 0 : -1;
		close(sv[0]);
		close(sv[1]);
	}
	say("socketpair_stream", r);
	r = socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv);
	if (r == 0) {
		close(sv[0]);
		close(sv[1]);
	}
	say("socketpair_dgram", r);
	if (port > 0) {
		connect_inet("connect_tcp4_loopback", SOCK_STREAM, port);
		connect_inet("sendto_udp4_loopback", SOCK_DGRAM, port);
	}
	if (infd >= 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		say("connect_inherited_tcp", connect(infd, (struct sockaddr *) &sa, sizeof(sa)));
		sa.sin_port = 0;
		say("bind_inherited_tcp", bind(infd, (struct sockaddr *) &sa, sizeof(sa)));
	}
	if (unix_path != NULL) {
		connect_unix("connect_unix_path", unix_path, 0);
		dgram_pair_unix("sendto_unix_path_dgram_pair", unix_path);
	}
	if (abstract != NULL)
		connect_unix("connect_unix_abstract", abstract, 1);

	{
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		r = syscall(SYS_io_uring_setup, 4, &p);
		if (r >= 0)
			close((int) r);
		say("io_uring_setup", r);
	}
	try_clone_newuser();            /* before unshare: a nested userns needs a mapping */
	r = unshare(CLONE_NEWUSER);
	say("unshare_newuser", r);
	r = syscall(SYS_clone3, NULL, 0);       /* EINVAL/EFAULT if it reaches the kernel */
	say("clone3", r);
	r = setns(-1, CLONE_NEWNET);            /* EBADF if it reaches the kernel */
	say("setns", r);
	{
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		char ch = 'x';

		/* ENOTTY if it reaches the kernel (/dev/null is no tty); EPERM from the filter. */
		say("ioctl_tiocsti", ioctl(fd, TIOCSTI, &ch));
		say("ioctl_tiocsti_highbits",
		    syscall(SYS_ioctl, fd, (1UL << 32) | TIOCSTI, &ch));
		if (fd >= 0)
			close(fd);
	}
	if (pid > 0) {
		char buf[8];
		struct iovec local = { buf, sizeof(buf) }, remote = { (void *) 0x10000, 8 };

		say("ptrace_attach", ptrace(PTRACE_ATTACH, pid, NULL, NULL));
		r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		say("process_vm_readv", r);
		r = syscall(SYS_pidfd_getfd, -1, 0, 0);
		say("pidfd_getfd", r);
	}
	return 0;
}
