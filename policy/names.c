/* SPDX-License-Identifier: MIT */
/* The names of limits, keys and isolation levels, and how a value is written: used by the
 * helper's messages as well as by the front-end. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse-util.h"
#include "policy-impl.h"

const char *const policy_key_names[_K_MAX] = {
	[K_MEMORY] = "memory",
	[K_CPU] = "cpu",
	[K_PIDS] = "pids",
	[K_DISK] = "disk",
	[K_TIMEOUT] = "timeout",
	[K_SANDBOXES] = "sandboxes",
	[K_TOTAL_MEMORY] = "total_memory",
	[K_TOTAL_CPU] = "total_cpu",
	[K_TOTAL_PIDS] = "total_pids",
	[K_NET] = "net",
	[K_FS] = "fs",
	[K_ALLOW] = "allow",
	[K_CGROUP_ROOT] = "cgroup_root",
	[K_WORKSPACE_ROOT] = "workspace_root",
	[K_ALLOW_GROUPS] = "allow_groups",
	[K_ALLOW_USERS] = "allow_users",
};

static const char *const limit_names[_POLICY_LIMIT_MAX] = {
	[POLICY_MEMORY] = "memory", [POLICY_CPU] = "cpu",         [POLICY_PIDS] = "pids",
	[POLICY_DISK] = "disk",     [POLICY_TIMEOUT] = "timeout",
};

const char *
policy_limit_name(enum policy_limit l)
{
	if ((unsigned) l >= _POLICY_LIMIT_MAX)
		return "unknown";
	return limit_names[l];
}

const char *
policy_total_name(int t)
{
	return t >= 0 && t < 3 ? policy_key_names[K_TOTAL_MEMORY + t] : "unknown";
}

const char *
policy_net_name(enum policy_net n)
{
	switch (n) {
	case POLICY_NET_NONE:
		return "none";
	case POLICY_NET_LOOPBACK:
		return "loopback";
	case POLICY_NET_PROXY:
		return "proxy";
	case POLICY_NET_HOST:
	default:
		return "host";
	}
}

int
policy_net_parse(const char *v, enum policy_net *ret)
{
	static const enum policy_net all[] = { POLICY_NET_HOST, POLICY_NET_PROXY,
					       POLICY_NET_LOOPBACK, POLICY_NET_NONE };

	for (size_t i = 0; v != NULL && i < ELEMENTSOF(all); i++)
		if (streq(v, policy_net_name(all[i]))) {
			*ret = all[i];
			return 0;
		}
	return -EINVAL;
}

const char *
policy_fs_name(enum policy_fs f)
{
	switch (f) {
	case POLICY_FS_NONE:
		return "none";
	case POLICY_FS_RO:
		return "ro";
	case POLICY_FS_STRICT:
		return "strict";
	}
	return "unknown";
}

int
policy_fs_parse(const char *v, enum policy_fs *ret)
{
	static const enum policy_fs all[] = { POLICY_FS_NONE, POLICY_FS_RO, POLICY_FS_STRICT };

	for (size_t i = 0; v != NULL && i < ELEMENTSOF(all); i++)
		if (streq(v, policy_fs_name(all[i]))) {
			*ret = all[i];
			return 0;
		}
	return -EINVAL;
}

void
policy_format_value(enum policy_limit l, uint64_t v, char *buf, size_t bufsz)
{
	if (v == UINT64_MAX) {
		(void) snprintf(buf, bufsz, "none");
		return;
	}
	if (v == 0) {
		(void) snprintf(buf, bufsz, "unlimited");
		return;
	}
	switch (l) {
	case POLICY_MEMORY:
	case POLICY_DISK:
		format_size(v, buf, bufsz);
		break;
	case POLICY_CPU:
		(void) snprintf(buf, bufsz, "%llu%%", (unsigned long long) v);
		break;
	case POLICY_TIMEOUT:
		format_duration_ms(v, buf, bufsz);
		break;
	case POLICY_PIDS:
	case _POLICY_LIMIT_MAX:
	default:
		(void) snprintf(buf, bufsz, "%llu", (unsigned long long) v);
		break;
	}
}
