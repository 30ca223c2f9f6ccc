/* SPDX-License-Identifier: MIT */
/* Policy parsing and resolution.  Placeholder so the helper and front-end link; the real
 * implementation follows. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "policy.h"

struct policy {
	char cgroup_root[POLICY_PATH_MAX];
	char workspace_root[POLICY_PATH_MAX];
};

int
policy_parse_string(const char *text, size_t len, const char *filename, struct policy **ret,
		    unsigned *reterr_line, char *errbuf, size_t errlen)
{
	if (reterr_line)
		*reterr_line = 0;
	if (errbuf && errlen)
		(void) snprintf(errbuf, errlen, "%s: policy parser not implemented yet", filename);
	return -ENOSYS;
}

int
policy_check_string(const char *text, size_t len, const char *filename,
		    void (*cb)(const char *msg, void *userdata), void *userdata)
{
	return -ENOSYS;
}

struct policy *
policy_free(struct policy *p)
{
	free(p);
	return NULL;
}

const char *
policy_cgroup_root(const struct policy *p)
{
	return p->cgroup_root;
}

const char *
policy_workspace_root(const struct policy *p)
{
	return p->workspace_root;
}

void
policy_resolve(const struct policy *p, const struct policy_subject *subj,
	       struct policy_resolved *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->allowed = false;
	(void) snprintf(ret->deny_reason, sizeof(ret->deny_reason), "policy not implemented");
}

int
policy_check_request(const struct policy_resolved *r, enum policy_limit l, uint64_t value,
		     char *errbuf, size_t errlen)
{
	return -EPERM;
}

const char *
policy_limit_name(enum policy_limit l)
{
	static const char *const names[_POLICY_LIMIT_MAX] = {
		[POLICY_MEMORY] = "memory", [POLICY_CPU] = "cpu", [POLICY_PIDS] = "pids",
		[POLICY_DISK] = "disk", [POLICY_TIMEOUT] = "timeout",
	};
	if ((unsigned) l >= _POLICY_LIMIT_MAX)
		return "unknown";
	return names[l];
}
