/* SPDX-License-Identifier: MIT */
/* RLIMIT_NPROC's exemptions; see nproc.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dir-util.h"
#include "macro.h"
#include "run/nproc.h"

/* Does uid_map map the namespace's uid to parent uid 0?  Each line is "INSIDE OUTSIDE
 * COUNT".  In the initial namespace the map is "0 0 4294967295": uid 0 is the root user.
 * In a child namespace (a rootless container) uid 0 is normally someone else's uid outside,
 * and the limit binds; a map that gives uid 0 to parent uid 0 counts as root (a nested
 * namespace could map it further, but that errs towards refusing).  Whether the namespace
 * is the initial one: its map covers all of 0..4294967294 one to one. */
static bool
map_uid(const char *map, uid_t uid, uint64_t *ret_out, bool *ret_initial)
{
	const char *p = map;
	bool found = false;

	*ret_initial = false;
	while (*p != '\0') {
		uint64_t in, out, count;
		int used = 0;

		if (sscanf(p, " %" SCNu64 " %" SCNu64 " %" SCNu64 "%n", &in, &out, &count, &used) !=
			    3 ||
		    used == 0)
			return false; /* unparsable: the caller assumes the worst */
		p += used;
		while (*p == ' ' || *p == '\n')
			p++;
		if (in == 0 && out == 0 && count == 4294967295u)
			*ret_initial = true;
		if (!found && (uint64_t) uid >= in && (uint64_t) uid - in < count) {
			*ret_out = out + ((uint64_t) uid - in);
			found = true;
		}
	}
	return found;
}

const char *
nproc_exemption_of(const char *uid_map, uid_t ruid, uint64_t cap_prm)
{
	const uint64_t caps = (1ULL << CAP_SYS_ADMIN) | (1ULL << CAP_SYS_RESOURCE);
	uint64_t outside = 0;
	bool initial = false;

	if (uid_map == NULL || !map_uid(uid_map, ruid, &outside, &initial))
		/* Cannot tell who we are outside: assume the exemption. */
		return ruid == 0 || (cap_prm & caps) != 0
			       ? "sandcap cannot read its user namespace's uid map (/proc/self/uid_map)"
			       : NULL;
	if (outside == 0)
		return "you are root (uid 0), whom RLIMIT_NPROC does not bind";
	/* Capabilities count in the initial user namespace only. */
	if (initial && (cap_prm & caps) != 0)
		return "sandcap holds CAP_SYS_ADMIN or CAP_SYS_RESOURCE, which RLIMIT_NPROC does "
		       "not bind";
	return NULL;
}

const char *
nproc_exemption(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	char map[1024];
	uint64_t prm = ~0ULL; /* unknown: assume every capability */
	/* A map that fills the buffer may be cut (-EFBIG): unreadable (340 lines at most). */
	int r = read_once_at(AT_FDCWD, "/proc/self/uid_map", map, sizeof(map), NULL);

	if (syscall(SYS_capget, &h, d) == 0)
		prm = (uint64_t) d[0].permitted | ((uint64_t) d[1].permitted << 32);
	return nproc_exemption_of(r == 0 ? map : NULL, getuid(), prm);
}
