/* SPDX-License-Identifier: MIT */
/*
 * Contract: --net none|loopback|proxy in cgroup mode, enforced by the kernel.  Trusts the
 * mode only after op_create() checked it against the policy's net requirement, and the
 * proxy port only as a number (any port of 127.0.0.1 is what the caller could reach
 * through its own proxy anyway).  The programs are built by lib/netbpf.c from constants,
 * never from client bytes, and attached to the leaf the helper created before any process
 * is in it; the leaf is root-owned and the sandbox holds neither CAP_NET_ADMIN (to detach)
 * nor write access to any cgroup.procs (to leave).  Attach flags 0: nothing below the
 * leaf can add or override programs.  The programs die with the leaf.
 * Capabilities: CAP_BPF and CAP_NET_ADMIN, both effective around bpf(2) only (priv_bpf()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "netbpf.h"
#include "priv.h"
#include "session.h"

int
net_attach(struct session *s, uint32_t net, uint16_t proxy_port, char *msg, size_t msglen)
{
	static const enum netbpf_mode mode_of[] = { [POLICY_NET_NONE] = NETBPF_NONE,
						    [POLICY_NET_LOOPBACK] = NETBPF_LOOPBACK,
						    [POLICY_NET_PROXY] = NETBPF_PROXY };

	/* op_create() checked the range. */
	if (net == POLICY_NET_HOST)
		return 0;
	if (!caps_have_net())
		return refuse(
			msg, msglen, -ENOTSUP,
			"--net %s: the helper lacks cap_bpf and cap_net_admin, which "
			"enforce it in cgroup mode (as root: setcap cap_dac_override,cap_chown,"
			"cap_sys_admin,cap_net_admin,cap_bpf=p %s)",
			policy_net_name(net), SC_HELPER_PATH);

	for (enum netbpf_prog p = 0; p < _NETBPF_PROG_MAX; p++) {
		const struct netbpf_info *info = &netbpf_progs[p];
		struct bpf_insn insns[NETBPF_INSNS_MAX];
		_cleanup_close_ int fd = -EBADF;
		static char vlog[2048];
		union bpf_attr a;
		long r;
		int n;

		n = netbpf_build(p, mode_of[net], proxy_port, insns, ELEMENTSOF(insns));
		if (n < 0)
			return n;
		memset(&a, 0, sizeof(a));
		a.prog_type = info->prog_type;
		a.expected_attach_type = info->attach_type;
		a.insns = (uintptr_t) insns;
		a.insn_cnt = (uint32_t) n;
		a.license = (uintptr_t) "GPL"; /* no helper is called; any string would do */
		vlog[0] = '\0';
		a.log_buf = (uintptr_t) vlog;
		a.log_size = sizeof(vlog);
		a.log_level = 1;
		r = priv_bpf(BPF_PROG_LOAD, &a);
		if (r < 0) {
			log_error("uid %u: BPF_PROG_LOAD %s: %s; verifier: %.400s",
				  (unsigned) s->uid, info->name, strerror((int) -r), vlog);
			return refuse(msg, msglen, -ENOTSUP,
				      "--net %s: the kernel refused the %s program: %s "
				      "(needs CONFIG_CGROUP_BPF; see sandcap doctor)",
				      policy_net_name(net), info->name, strerror((int) -r));
		}
		fd = (int) r;

		memset(&a, 0, sizeof(a));
		a.target_fd = (uint32_t) s->leaf_fd;
		a.attach_bpf_fd = (uint32_t) fd;
		a.attach_type = info->attach_type;
		r = priv_bpf(BPF_PROG_ATTACH, &a);
		if (r < 0)
			return refuse(msg, msglen, -ENOTSUP,
				      "--net %s: cannot attach the %s program to cgroup %s: "
				      "%s",
				      policy_net_name(net), info->name, s->id, strerror((int) -r));
	}
	log_info("uid %u: %s: --net %s enforced by %d cgroup BPF programs%s", (unsigned) s->uid,
		 s->id, policy_net_name(net), (int) _NETBPF_PROG_MAX,
		 net == POLICY_NET_PROXY ? " (proxy port given)" : "");
	return 0;
}
