/* SPDX-License-Identifier: MIT */
/* probe-nodiag COMMAND [ARG...]: run COMMAND (sandcap) where NETLINK_SOCK_DIAG cannot be
 * had, as on a kernel without unix_diag: a seccomp filter (no_new_privs set, as any user
 * may) makes socket(AF_NETLINK, ...) fail with EAFNOSUPPORT, then COMMAND is executed.
 * t-unix.sh checks that sandcap then refuses the default run instead of connecting to
 * UNIX listeners before deciding. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;

	if (argc < 2) {
		fprintf(stderr, "usage: probe-nodiag COMMAND [ARG...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
			     SCMP_A0(SCMP_CMP_EQ, AF_NETLINK)) < 0 ||
	    seccomp_load(ctx) < 0) {
		perror("probe-nodiag: cannot load the filter");
		return 2;
	}
	seccomp_release(ctx);
	execvp(argv[1], argv + 1);
	perror("probe-nodiag: exec");
	return 127;
}
