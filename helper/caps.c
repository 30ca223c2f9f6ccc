/* SPDX-License-Identifier: MIT */
/*
 * Contract: the helper's entire privilege.  Trusts the kernel and libcap-ng.  The file
 * capabilities are "=p": nothing is effective until priv.c raises what one system call
 * needs, and lowers it again before it returns (docs/design.md, "Decisions").
 *
 * libcap-ng keeps the state per thread; the helper is single-threaded, and the state always
 * names the calling process (pid 0), so that the process SPAWN creates, which inherits it
 * through clone3 without libcap-ng's fork handler, drops its own capabilities.
 */
#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "priv.h"
#include "macro.h"

/* One line per capability, each naming the operations that need it.  Adding a line is a
 * security-review item. */
static const struct {
	const char *name;
	unsigned cap;
	bool optional; /* without it only --net host works in cgroup mode */
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

#define NET (CAPS(CAP_BPF) | CAPS(CAP_NET_ADMIN))
static uint64_t permitted, effective; /* what the kernel holds for us after caps_init() */

/* Set exactly permitted as permitted and eff as effective, nothing inheritable. */
static int
apply(uint64_t eff)
{
	capng_clear(CAPNG_SELECT_CAPS);
	for (unsigned c = 0; c < 64; c++) {
		if ((permitted & CAPS(c)) && capng_update(CAPNG_ADD, CAPNG_PERMITTED, c) < 0)
			return -EPERM;
		if ((eff & CAPS(c)) && capng_update(CAPNG_ADD, CAPNG_EFFECTIVE, c) < 0)
			return -EPERM;
	}
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	effective = eff;
	return 0;
}

bool
caps_have_net(void)
{
	return (permitted & NET) == NET;
}

int
caps_init(char *missing, size_t len)
{
	uint64_t keep = 0;
	int r = 0;

	if (len > 0)
		missing[0] = '\0';
	capng_setpid(0);
	if (capng_get_caps_process() < 0)
		return -EPERM;
	for (size_t i = 0; i < ELEMENTSOF(helper_caps); i++) {
		if (capng_have_capability(CAPNG_PERMITTED, helper_caps[i].cap))
			keep |= CAPS(helper_caps[i].cap);
		else if (!helper_caps[i].optional) {
			size_t off = strnlen(missing, len);

			(void) snprintf(missing + off, len - off, " %s", helper_caps[i].name);
			r = -EPERM;
		}
	}
	if (r < 0)
		return r;
	if ((keep & NET) != NET)
		keep &= ~NET; /* both or neither: without them only --net host works */
	/* Only our capabilities stay permitted, none effective, none inheritable.  The
	 * bounding set is left alone: changing it needs CAP_SETPCAP. */
	permitted = keep;
	return apply(0);
}

int
caps_raise_set(uint64_t caps)
{
	if ((caps & ~permitted) != 0)
		return -EPERM;
	return apply(effective | caps);
}

void
caps_lower_all(void)
{
	int saved = errno; /* callers read errno of the bracketed syscall after this */

	/* A capability still effective past its bracket would widen the next steps: a
	 * failed lowering ends the helper (fail closed; sandcap sees it die). */
	if (effective != 0 && apply(0) < 0)
		_exit(EXIT_FAILURE);
	errno = saved;
}

/* Does the kernel still hold any capability for us, in any of the three sets? */
static bool
any_left(void)
{
	if (capng_get_caps_process() < 0)
		return true;
	for (unsigned c = 0; c < 64; c++)
		if (capng_have_capability(CAPNG_EFFECTIVE, c) != 0 ||
		    capng_have_capability(CAPNG_PERMITTED, c) != 0 ||
		    capng_have_capability(CAPNG_INHERITABLE, c) != 0)
			return true;
	return false;
}

int
caps_drop_all(void)
{
	/* Permitted, effective and inheritable empty (lowering needs no privilege), and the
	 * ambient set, which an exec would turn into effective capabilities; then read back:
	 * a process that still holds one must not go on. */
	capng_clear(CAPNG_SELECT_CAPS);
	if (capng_apply(CAPNG_SELECT_CAPS) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 || any_left())
		return -EPERM;
	permitted = effective = 0;
	return 0;
}
