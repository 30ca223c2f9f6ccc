/* SPDX-License-Identifier: MIT */
/* `sandcap run` in user-cgroup mode: the admin's policy applied by the front-end, the scope
 * and leaf of usercg.c, and what goes into the report. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "isolate/isolate.h"
#include "macro.h"
#include "run/usercg-run.h"

/* A session's call (run_usercg_session()): its leaf goes under the session's scope. */
static const char *session_scope, *session_leaf;

void
run_usercg_session(const char *scope, const char *leaf)
{
	session_scope = scope;
	session_leaf = leaf;
}

const char *
run_usercg_session_scope(void)
{
	return session_scope;
}

bool
run_usercg_skip_helper(char *why, size_t len)
{
	if (session_scope == NULL)
		return false;
	(void) snprintf(why, len, "a call of a user-cgroup session");
	return true;
}

/* The limits this mode may change, committed to struct run_opts only when it runs. */
struct ucg_limits {
	uint64_t memory, cpu_percent, pids, disk, timeout_ms;
	bool has_timeout;
};

int
run_policy_check(const struct policy_resolved *pol, enum policy_limit l, uint64_t value, char *err,
		 size_t errlen)
{
	char why[POLICY_ERR_MAX];
	int r = policy_check_request(pol, l, value, why, sizeof(why));

	if (r < 0)
		(void) snprintf(err, errlen,
				"--%s: give a %s, or ask the admin (sandcap policy "
				"show lists your ceilings)",
				why, l == POLICY_TIMEOUT ? "shorter --timeout" : "smaller value");
	return r;
}

/* The policy, applied by sandcap itself (no helper checks it in this mode). */
static int
apply_policy(struct ucg_limits *o, const struct policy_resolved *pol, char *err, size_t errlen)
{
	uint64_t *v[] = { &o->memory, &o->cpu_percent, &o->pids, &o->disk, &o->timeout_ms };
	const enum policy_limit l[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS, POLICY_DISK,
					POLICY_TIMEOUT };

	if (!pol->allowed) {
		/* Not a refusal of the run: this mode is not open to the user, as the helper
		 * is not (rlimit mode then, with cgroup-only limits refused). */
		(void) snprintf(err, errlen, "the policy does not allow you cgroup limits: %s",
				pol->deny_reason);
		return -EACCES;
	}
	if (!o->has_timeout)
		o->timeout_ms = 0;
	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		int r = run_policy_check(pol, l[i], *v[i], err, errlen);

		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		if (l[i] == POLICY_DISK && *v[i] == 0)
			continue; /* no workspace in this mode: a disk default is not applied */
		*v[i] = policy_effective(pol, l[i], *v[i]);
	}
	if (o->timeout_ms > 0)
		o->has_timeout = true;
	return 0;
}

int
run_usercg_setup(struct run_opts *o, struct report *rep, const struct policy_resolved *pol,
		 const char *id, struct usercg *u, char *err, size_t errlen)
{
	struct ucg_limits eff = { .memory = o->memory,
				  .cpu_percent = o->cpu_percent,
				  .pids = o->pids,
				  .disk = o->disk,
				  .timeout_ms = o->timeout_ms,
				  .has_timeout = o->has_timeout };
	struct sc_request req;
	uint64_t backstop = 0;
	int r;

	if (pol != NULL) {
		r = apply_policy(&eff, pol, err, errlen);
		if (r < 0)
			return r;
	}
	req = (struct sc_request){ .memory = eff.memory,
				   .cpu_percent = eff.cpu_percent,
				   .pids = eff.pids };
	if (eff.has_timeout) /* the user manager kills the scope if sandcap does not */
		backstop = eff.timeout_ms + o->grace_ms + 10000;
	r = usercg_open(u, id, backstop, err, errlen);
	if (r == 0 && session_scope != NULL)
		r = usercg_use_parent(u, session_scope, session_leaf, err, errlen);
	if (r == 0)
		r = usercg_create(u, &req, err, errlen);
	if (r < 0 && session_scope != NULL) {
		/* The session's limits hold only in its scope: no other mode will do. */
		char why[512];

		(void) snprintf(why, sizeof(why), "%s", err);
		(void) snprintf(err, errlen, "the session runs its calls in user-cgroup mode: %s",
				why);
		return -EPERM;
	}
	if (r < 0)
		return r == -EINVAL || r == -EPERM ? -EIO : r;
	/* Only now a refusal: this mode would run, but cannot give what was asked. */
	if (eff.disk > 0 && !o->fallback) {
		(void) snprintf(
			err, errlen,
			"--disk needs the sandcap helper (a size-limited tmpfs "
			"workspace), which user-cgroup mode has not; pass --fallback to accept "
			"RLIMIT_FSIZE (per file) instead, or ask the admin to install the helper");
		return -EINVAL;
	}
	o->memory = eff.memory;
	o->cpu_percent = eff.cpu_percent;
	o->pids = eff.pids;
	o->disk = eff.disk;
	o->timeout_ms = eff.timeout_ms;
	o->has_timeout = eff.has_timeout;

	rep->mode = "user-cgroup";
	if (u->effective.memory > 0) {
		report_add_limit(rep, "memory", u->effective.memory);
		report_add_enforcement(rep, "memory", "user-cgroup");
	}
	if (u->effective.cpu_percent > 0) {
		report_add_limit(rep, "cpu_percent", u->effective.cpu_percent);
		report_add_enforcement(rep, "cpu", "user-cgroup");
	}
	if (u->effective.pids > 0) {
		report_add_limit(rep, "pids", u->effective.pids);
		report_add_enforcement(rep, "pids", "user-cgroup");
	}
	if (u->enforcement[0] != '\0')
		report_add_enforcement(rep, "user_cgroup_notes", "%s", u->enforcement);
	if (session_scope != NULL)
		report_add_enforcement(rep, "session",
				       "user-cgroup: this call's cgroup %s is below the "
				       "session's scope, whose limits bind it too",
				       session_leaf);
	if (backstop > 0)
		report_add_enforcement(rep, "timeout_backstop",
				       "systemd user manager "
				       "(RuntimeMaxSec of %s)",
				       u->unit);

	return 0;
}

void
run_usercg_protect(struct report *rep, struct isolate_plan *plan)
{
	/* This mode's own: the plans of the other modes carry no room for them. */
	static char mounts[CGPROTECT_MAX][PATH_MAX];
	size_t n = 0;

	/* The user owns the scope: without a Landlock layer over the cgroup filesystem, the
	 * sandbox could raise its own limits. */
	if (plan->landlock_abi >= 1 && cgprotect_mounts(mounts, CGPROTECT_MAX, &n, NULL, 0) == 0 &&
	    n > 0) {
		plan->cg_protect = (const char(*)[PATH_MAX]) mounts;
		plan->n_cg_protect = n;
		/* Both fit the report's 96 bytes. */
		report_add_enforcement(rep, "cgroup_files",
				       "landlock (ABI %d): the sandbox cannot "
				       "write the cgroup files; the limits bind hostile code",
				       plan->landlock_abi);
	} else {
		report_add_enforcement(rep, "cgroup_files",
				       "not protected (no Landlock): the limits "
				       "bind runaway code, not hostile code");
	}
}
