/* SPDX-License-Identifier: MIT */
/*
 * Contract: the helper's entire privilege.  Trusts libcap-ng and the kernel.  The file
 * capabilities are "=p": nothing is effective until caps_raise(), and each call site
 * brackets exactly one privileged syscall (DESIGN.md "The helper's rules"), except the
 * sequences on objects the helper made and holds by fd that SECURITY.md lists under
 * "Savings of issue 19" (cg_take(), write_limits(), write_totals()).
 */
#include <cap-ng.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "macro.h"

/* One line per capability, each naming the operations that need it.  Adding a line is a
 * security-review item. */
static const struct {
	const char *name;
	unsigned cap;
	bool optional;          /* without it only --net host works in cgroup mode */
} helper_caps[] = {
	/* open the 0700 delegated parent, mkdir/rmdir leaves, write limits, cgroup.kill and
	 * cgroup.procs (open-time credentials), the root-owned workspace and lock dirs */
	{ "cap_dac_override", CAP_DAC_OVERRIDE, false },
	/* hand each new leaf and its files, and the helper's own dirs, to root */
	{ "cap_chown", CAP_CHOWN, false },
	/* fsopen/fsmount/move_mount/umount2 of the per-sandbox tmpfs */
	{ "cap_sys_admin", CAP_SYS_ADMIN, false },
	/* bpf(2) BPF_PROG_LOAD of the cgroup socket programs of --net (op_net.c) */
	{ "cap_bpf", CAP_BPF, true },
	/* bpf(2) BPF_PROG_LOAD and BPF_PROG_ATTACH of those programs to the leaf */
	{ "cap_net_admin", CAP_NET_ADMIN, true },
};

static bool have_net;   /* both optional capabilities are permitted */

bool
caps_have_net(void)
{
	return have_net;
}

int
caps_init(char *missing, size_t len)
{
	size_t off = 0;
	int r = 0;

	if (len > 0)
		missing[0] = '\0';
	if (capng_get_caps_process() < 0)
		return -EPERM;
	have_net = true;
	for (size_t i = 0; i < ELEMENTSOF(helper_caps); i++)
		if (helper_caps[i].optional) {
			if (capng_have_capability(CAPNG_PERMITTED, helper_caps[i].cap) != 1)
				have_net = false;
		} else if (capng_have_capability(CAPNG_PERMITTED, helper_caps[i].cap) != 1) {
			int n = snprintf(missing + off, len - off, " %s", helper_caps[i].name);

			if (n > 0 && (size_t) n < len - off)
				off += (size_t) n;
			r = -EPERM;
		}
	if (r < 0)
		return r;
	capng_clear(CAPNG_SELECT_CAPS);
	for (size_t i = 0; i < ELEMENTSOF(helper_caps); i++)
		if ((!helper_caps[i].optional || have_net) &&
		    capng_update(CAPNG_ADD, CAPNG_PERMITTED, helper_caps[i].cap) < 0)
			return -EINVAL;
	/* SELECT_CAPS only: touching the bounding set needs CAP_SETPCAP. */
	return capng_apply(CAPNG_SELECT_CAPS) < 0 ? -EPERM : 0;
}

int
caps_raise(unsigned cap)
{
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE, cap) < 0 ||
	    capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	return 0;
}

void
caps_lower(unsigned cap)
{
	int saved = errno;      /* callers read errno of the bracketed syscall after this */

	(void) capng_update(CAPNG_DROP, CAPNG_EFFECTIVE, cap);
	(void) capng_apply(CAPNG_SELECT_CAPS);
	errno = saved;
}
