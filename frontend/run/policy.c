/* SPDX-License-Identifier: MIT */
/* The caller's policy, read and resolved without privilege (the helper decides again for
 * itself), the timeout it sets in rlimit mode, and --profile's words. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "policy.h"
#include "run/args.h"
#include "run/caller.h"
#include "run/profile.h"
#include "run/run-int.h"

/* ---- the caller's policy, read without privilege (the file is normally 0644) ---- */

/* Read and parse the installed policy.  Returns 0 with *ret; -ENOENT when there is no
 * policy file (nothing to apply); any other -errno when the file exists but cannot be
 * trusted, read or parsed, with the refusal in msg: the caller must refuse to run, in every
 * mode, or a typo in the policy would silently drop what it requires. */
int
load_policy(struct policy **ret, char *msg, size_t msglen)
{
	enum policy_load_step step;
	char err[POLICY_ERR_MAX];
	int r;

	r = policy_load(SC_POLICY_PATH, ret, &step, err, sizeof(err));
	if (r == 0 || step == POLICY_LOAD_MISSING)
		return r;
	if (step == POLICY_LOAD_UNTRUSTED)
		snprintf(msg, msglen,
			 "the policy %s cannot be used: %s; refusing to run until the "
			 "admin fixes it (sandcap policy check %s; sandbox.ini(5))",
			 SC_POLICY_PATH, err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
	else /* err is "FILE:LINE: message" */
		snprintf(msg, msglen,
			 "the policy %s is invalid (%s); refusing to run until the admin "
			 "fixes it: sandcap policy check %s lists every error",
			 SC_POLICY_PATH, err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
	return r == -ENOENT ? -EACCES : r;
}

static bool
policy_names_ids(const struct policy *p)
{
	return p != NULL && (policy_names_users(p) || policy_names_groups(p));
}

/* Resolve the policy for the calling user (and free it).  Used for early refusals
 * (isolation the policy requires), by rlimit and user-cgroup mode, and by `sandcap trace`
 * (the ceilings); the helper always decides again for itself.  Returns 0; -ENOMEM. */
int
resolve_policy(struct policy *p, struct policy_resolved *ret)
{
	_cleanup_(policy_caller_done) struct policy_caller c = {};
	struct policy_subject subj;
	int r = 0;

	/* As the helper: no section or list names a user or a group, so the name cannot
	 * change the verdict; no NSS lookup (nscd, nsswitch.conf, passwd), and a uid without
	 * a passwd entry is judged like any other.
	 * As the helper, too: no group lookup when no group is named (same result). */
	if (policy_names_ids(p))
		r = caller_lookup(policy_names_groups(p), POLICY_GROUPS_MAX, &c);
	/* A uid without a passwd entry: no [user:] section or list can name it, so it is
	 * judged as a user of its process's groups (never by no policy at all). */
	if (r == -ENOENT)
		r = 0;
	if (r == 0) {
		subj = policy_caller_subject(&c);
		policy_resolve(p, &subj, ret);
	}
	policy_free(p);
	return r;
}

/* rlimit mode: the policy's timeout ceiling and default, which sandcap enforces itself in
 * every mode (the helper, or user-cgroup mode, apply them in theirs): the same command line
 * gets the same timeout whichever mode runs it.  They bind a user the policy does not allow
 * too: access decides who may use the helper, not which limits bind (sandbox.ini(5)).
 * Returns 0, or -EPERM with the refusal. */
int
policy_timeout(struct run_opts *o, const struct policy_resolved *pol, char *err, size_t errlen)
{
	char why[POLICY_ERR_MAX];
	uint64_t t;
	int r;

	r = policy_check_ceiling(pol, POLICY_TIMEOUT, o->has_timeout ? o->timeout_ms : 0, why,
				 sizeof(why));
	if (r < 0) {
		(void) snprintf(err, errlen,
				"--%s: give a shorter --timeout, or ask the admin "
				"(sandcap policy show lists your ceilings)",
				why);
		return r;
	}
	t = policy_effective(pol, POLICY_TIMEOUT, o->has_timeout ? o->timeout_ms : 0);
	if (!o->has_timeout && t > 0) {
		o->has_timeout = true;
		o->timeout_ms = t;
	}
	return 0;
}

/* ---- --profile NAME: its settings become option words before the command line's ---- */

/* If argv has --profile NAME (or --profile=NAME) among its options, load it and build a new
 * argv: argv[0], the profile's words, then argv[1..] (run_args_parse() passes over the
 * --profile there).  *ret_argv is malloc'ed (the words belong to prof).  Returns 0 (no
 * profile: *ret_argv = NULL), or -EINVAL after printing why. */
int
expand_profile(int argc, char **argv, struct profile *prof, int *ret_argc, char ***ret_argv)
{
	char err[PROFILE_ERR_MAX];
	const char *name = NULL;
	char **nv;
	int n;

	*ret_argv = NULL;
	if (run_args_find_profile(argc, argv, &name) < 0)
		return -EINVAL;
	if (name == NULL)
		return 0;
	if (profile_load(name, prof, err, sizeof(err)) < 0) {
		char esc[256];

		fprintf(stderr, "sandcap: --profile %s: %s\n", log_escape(name, esc, sizeof(esc)),
			err);
		return -EINVAL;
	}
	nv = calloc((size_t) argc + prof->nwords + 1, sizeof(char *));
	if (nv == NULL) {
		profile_done(prof);
		return -ENOMEM;
	}
	n = 0;
	nv[n++] = argv[0];
	for (size_t i = 0; i < prof->nwords; i++)
		nv[n++] = prof->words[i];
	for (int i = 1; i < argc; i++)
		nv[n++] = argv[i];
	nv[n] = NULL;
	*ret_argc = n;
	*ret_argv = nv;
	return 0;
}
