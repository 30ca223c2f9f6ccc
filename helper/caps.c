/* SPDX-License-Identifier: MIT */
/*
 * Contract: the helper's entire privilege.  Trusts the kernel.  The file capabilities are
 * "=p": nothing is effective until caps_raise(), and each call site brackets one privileged
 * syscall (docs/design.md, "Decisions"), except the sequences on objects the helper made
 * and holds by fd that SECURITY.md lists under "Savings of issue 19".
 *
 * capget(2)/capset(2) directly, with the v3 ABI (two 32-bit words): the helper is single-
 * threaded (capabilities are per thread) and keeps the state here, so raising or lowering
 * is exactly one capset(2).  libcap-ng did the same with a library load and 15 start-up
 * system calls (issue 19).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

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
static uint64_t permitted, effective;   /* what the kernel holds for us after caps_init() */

static int
apply(uint64_t eff)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	/* inheritable stays empty: nothing passes through an exec. */
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t) eff, .permitted = (uint32_t) permitted },
		{ .effective = (uint32_t) (eff >> 32), .permitted = (uint32_t) (permitted >> 32) },
	};

	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	effective = eff;
	return 0;
}

bool
caps_have_net(void)
{
	return have_net;
}

int
caps_init(char *missing, size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	uint64_t have, keep = 0;
	size_t off = 0;
	int r = 0;

	if (len > 0)
		missing[0] = '\0';
	if (syscall(SYS_capget, &h, d) < 0)
		return -EPERM;
	have = (uint64_t) d[0].permitted | (uint64_t) d[1].permitted << 32;
	have_net = true;
	for (size_t i = 0; i < ELEMENTSOF(helper_caps); i++) {
		if (have & CAPS(helper_caps[i].cap))
			keep |= CAPS(helper_caps[i].cap);
		else if (helper_caps[i].optional)
			have_net = false;
		else {
			int n = snprintf(missing + off, len - off, " %s", helper_caps[i].name);

			if (n > 0 && (size_t) n < len - off)
				off += (size_t) n;
			r = -EPERM;
		}
	}
	if (r < 0)
		return r;
	if (!have_net)
		keep &= ~(CAPS(CAP_BPF) | CAPS(CAP_NET_ADMIN));
	/* Only our capabilities stay permitted, none effective.  The bounding set is left
	 * alone: changing it needs CAP_SETPCAP. */
	permitted = keep;
	/* Already so (the file grants exactly ours, permitted only: the usual case): the
	 * capset would set what the kernel holds (#19). */
	if (have == keep && d[0].effective == 0 && d[1].effective == 0 &&
	    d[0].inheritable == 0 && d[1].inheritable == 0) {
		effective = 0;
		return 0;
	}
	return apply(0) < 0 ? -EPERM : 0;
}

int
caps_raise_set(uint64_t caps)
{
	if ((caps & ~permitted) != 0)
		return -EPERM;
	/* Already effective (a bracket that continues one opened for the step before, #19):
	 * the capset would set what the kernel holds. */
	if ((effective | caps) == effective)
		return 0;
	return apply(effective | caps) < 0 ? -EPERM : 0;
}

void
caps_lower_all(void)
{
	int saved = errno;      /* callers read errno of the bracketed syscall after this */

	/* A capability still effective past its bracket would widen the next steps: a
	 * failed lowering ends the helper (fail closed; sandcap sees it die). */
	if (effective != 0 && apply(0) < 0)
		_exit(EXIT_FAILURE);
	errno = saved;
}

int
caps_drop_all(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 }, { 0 } };

	/* Permitted, effective and inheritable empty (lowering needs no privilege), and the
	 * ambient set, which an exec would turn into effective capabilities; then read back:
	 * a process that still holds one must not go on. */
	if (syscall(SYS_capset, &h, d) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
	    syscall(SYS_capget, &h, d) < 0)
		return -EPERM;
	for (size_t i = 0; i < ELEMENTSOF(d); i++)
		if (d[i].effective != 0 || d[i].permitted != 0 || d[i].inheritable != 0)
			return -EPERM;
	permitted = effective = 0;
	return 0;
}
