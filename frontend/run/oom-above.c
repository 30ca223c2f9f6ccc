/* SPDX-License-Identifier: MIT */
/* The cgroups above a sandbox's leaf, read by sandcap outside the sandbox, for the verdict's
 * evidence (docs/report.md, "oom_at"): a session's own cgroup (cgroup mode: the helper's
 * level; user-cgroup mode: the user manager's scope) and, in cgroup mode, the per-user level.
 * Their memory.events are the kernel's counts, which nobody can write; what a call could
 * change is their limits, which read_by says. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "macro.h"
#include "run/run-int.h"
#include "run/run.h"

/* The path of the cgroup up levels above the leaf, as the kernel names the leaf's
 * descriptor (never a name the sandbox could have planted); "" if unknown. */
static void
path_above(int leaf_fd, unsigned up, char *buf, size_t len)
{
	char proc[64], path[PATH_MAX];
	ssize_t n;

	buf[0] = '\0';
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", leaf_fd);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	for (; up > 0; up--) {
		char *slash = strrchr(path, '/');

		if (slash == NULL || slash == path)
			return;
		*slash = '\0';
	}
	if (strlen(path) < len)
		memcpy(buf, path, strlen(path) + 1);
}

void
run_levels_read(struct run *R, bool after)
{
	struct verdict_input *in = &R->in;
	int leaf = R->cgroup ? R->sess.leaf_fd : R->ucgroup ? R->ucg.leaf_fd : -EBADF;
	/* A call's leaf is in the session's cgroup: cgroup mode names the level, user-cgroup
	 * mode opened the scope as the leaf's parent. */
	bool session = R->cgroup ? run_session_level() != NULL : R->ucg.parent_fd >= 0;

	if (leaf < 0)
		return;
	if (session && (!after || in->has_session))
		in->has_session =
			cgstats_read_level_at(
				leaf, "..", after ? &in->session_after : &in->session_before) == 0;
	/* The per-user level (cgroup_root/<uid>) is the helper's only. */
	if (R->cgroup && (!after || in->has_level))
		in->has_level =
			cgstats_read_level_at(leaf, session ? "../.." : "..",
					      after ? &in->level_after : &in->level_before) == 0;
	if (!after)
		return;
	if (in->has_session)
		path_above(leaf, 1, R->session_cg, sizeof(R->session_cg));
	if (in->has_level)
		path_above(leaf, session ? 2 : 1, R->level_cg, sizeof(R->level_cg));
}

void
run_oom_evidence(struct run *R)
{
	const struct verdict_input *in = &R->in;
	struct report_oom_at *o = &R->rep.oom_at;
	unsigned hit = R->rep.v.limits_hit;
	const struct cg_level *a, *b;
	const char *cg;

	if (hit & (1u << VERDICT_SESSION_MEMORY)) {
		o->limit = verdict_name(VERDICT_SESSION_MEMORY);
		a = &in->session_before;
		b = &in->session_after;
		cg = R->session_cg;
		if (R->cgroup)
			snprintf(o->read_by, sizeof(o->read_by),
				 "sandcap, outside the sandbox: the helper's session level, "
				 "root-owned: no call can write its limits or leave it");
		else if (R->plan.n_cg_protect > 0)
			snprintf(o->read_by, sizeof(o->read_by),
				 "sandcap, outside the sandbox: your session's scope, whose files "
				 "Landlock kept the call from writing");
		else
			snprintf(
				o->read_by, sizeof(o->read_by),
				"sandcap, outside the sandbox: your session's scope, writable by the "
				"call (no Landlock): the OOM is the kernel's count, memory_max may "
				"be the call's");
	} else if (hit & (1u << VERDICT_TOTAL_MEMORY)) {
		o->limit = verdict_name(VERDICT_TOTAL_MEMORY);
		a = &in->level_before;
		b = &in->level_after;
		cg = R->level_cg;
		snprintf(o->read_by, sizeof(o->read_by),
			 "sandcap, outside the sandbox: the helper's per-user level, root-owned: "
			 "no sandbox can write its limits or leave it");
	} else {
		return;
	}
	snprintf(o->cgroup, sizeof(o->cgroup), "%s", cg);
	o->has_memory_max = b->has_limits;
	o->memory_max = b->memory_max;
	o->oom = b->oom_local - a->oom_local;
	o->has_oom_kill = b->has_oom_kill;
	o->oom_kill = b->oom_kill;
}
