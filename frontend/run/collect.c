/* SPDX-License-Identifier: MIT */
/* A cgroup-mode or user-cgroup-mode run's end: the final counters of its leaf and of the
 * levels above it, then the leaf's teardown. */
#include <stdio.h>
#include <string.h>

#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "run/run-int.h"
#include "run/trace.h"

/* The final counters of the sandbox's cgroup, then its teardown. */
void
run_collect(struct run *R)
{
	int r;

	if (R->ucgroup) {
		r = cgstats_read(R->ucg.leaf_fd, -EBADF, &R->rep.cg);
		run_levels_read(R, true);
		if (r < 0)
			fprintf(stderr,
				"sandcap: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		r = usercg_destroy(&R->ucg, R->err, sizeof(R->err));
		if (r < 0) {
			fprintf(stderr, "sandcap: warning: teardown incomplete: %s\n", R->err);
			R->teardown_failed = true;
		}
		R->in.counters = R->rep.cg;
		R->in.cpu_budget_fired = R->out.cpu_budget_fired;
	}
	if (R->cgroup) {
		/* The final counters, before DESTROY closes the leaf. */
		r = cgstats_read(R->sess.leaf_fd, R->sess.ws_fd, &R->rep.cg);
		run_levels_read(R, true);
		if (r < 0)
			fprintf(stderr,
				"sandcap: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		if (R->trace->on && R->sess.ws_fd >= 0)
			trace_largest_file(R->sess.ws_fd, 0, &R->fsize_max);
		r = client_destroy(&R->sess, R->err, sizeof(R->err));
		if (r < 0) {
			if (R->err[0] == '\0')
				(void) strlcpy(R->err, strerror(-r), sizeof(R->err));
			fprintf(stderr, "sandcap: warning: teardown incomplete: %s\n", R->err);
			R->teardown_failed = true;
		}
		R->in.counters = R->rep.cg;
		R->in.disk_limit = R->sess.effective.disk;
		R->in.cpu_budget_fired = R->out.cpu_budget_fired;
	}
}
