/* SPDX-License-Identifier: MIT */
/* `sandcap run` in user-cgroup mode (usercg.h), between option parsing and the supervisor. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "run/args.h"
#include "isolate/isolate.h"
#include "policy.h"
#include "report/report.h"
#include "cgroup/usercg.h"

/* Apply the admin's policy (pol may be NULL: no policy file) to o, as the helper would:
 * refusal of a denied user, ceilings, defaults.  Then open the scope and write the limits,
 * and record mode, limits and enforcement in rep.  Returns 0; -EPERM/-EINVAL when the run
 * must be refused (over a ceiling; err says why: exit 125); other -errno when this mode is
 * not available here or to this user (-EACCES: the policy does not allow the user; err
 * says why: the caller goes on to rlimit mode). */
int run_usercg_setup(struct run_opts *o, struct report *rep, const struct policy_resolved *pol,
		     const char *id, struct usercg *u, char *err, size_t errlen);

/* The next run_main() is a call of a user-cgroup session: its leaf is scope/leaf (the
 * session's scope, "call-N") instead of <its own scope>/sandbox, no helper is asked, and
 * the run is refused rather than run in another mode.  NULL, NULL: an ordinary run again. */
void run_usercg_session(const char *scope, const char *leaf);
/* The session's scope of the call that runs (run_usercg_session()), or NULL. */
const char *run_usercg_session_scope(void);
/* A call of a user-cgroup session asks no helper: true, with why the helper is not used. */
bool run_usercg_skip_helper(char *why, size_t len);

/* policy_check_request() for a value of the command line, its refusal naming the option
 * and the way out: "--memory 4 GiB is over the ceiling 2 GiB set by [limits]: give a
 * smaller value, or ask the admin (sandcap policy show lists your ceilings)". */
int run_policy_check(const struct policy_resolved *pol, enum policy_limit l, uint64_t value,
		     char *err, size_t errlen);

/* After isolate_plan(): add the Landlock layer that keeps the cgroup filesystem unwritable
 * where the kernel has Landlock, and say in rep what protects (or does not protect) the
 * sandbox's own cgroup files. */
void run_usercg_protect(struct report *rep, struct isolate_plan *plan);
