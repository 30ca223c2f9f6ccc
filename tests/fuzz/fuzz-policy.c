/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the policy parser (both passes, libinih in between), the checker and
 * resolution on whatever parses.  Any crash, leak or sanitizer report is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
name_seen(bool user, const char *name, unsigned line, const char *where, void *userdata)
{
	(void) user;
	(void) where;
	(void) userdata;
	if (name == NULL || name[0] == '\0' || line == 0)
		abort();
}

static void
count(const char *msg, void *userdata)
{
	size_t *n = userdata;

	*n += strlen(msg) > 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const groups[] = { "builders", "testers", "g", "developers" };
	struct policy_subject subj = { .user = "alice", .groups = groups, .ngroups = 4 };
	struct policy *p = NULL;
	struct policy_resolved r;
	char err[POLICY_ERR_MAX];
	unsigned line = 0;
	size_t n = 0;
	int rp, rc;

	if (size > POLICY_FILE_MAX + 16)
		return 0;
	rp = policy_parse_string((const char *) data, size, "fuzz.ini", &p, &line, err,
				 sizeof(err));
	rc = policy_check_string((const char *) data, size, "fuzz.ini", count, &n);
	/* The two entry points must agree on validity. */
	if ((rp == 0) != (rc == 0) || (rc > 0 && n != (size_t) rc))
		abort();
	if (rp == 0) {
		if (p == NULL)
			abort();
		policy_resolve(p, &subj, &r);
		for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
			/* A default never exceeds its ceiling. */
			if (r.dflt[l] > r.ceiling[l])
				abort();
			(void) policy_check_request(&r, l, UINT64_C(1) << 33, err, sizeof(err));
		}
		/* policy check's extras and policy show's values as written. */
		(void) policy_lint(p, "fuzz.ini", count, &n);
		policy_for_each_name(p, name_seen, NULL);
		for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
			(void) policy_value_text(p, r.ceiling_src[l], policy_limit_name(l));
			(void) policy_value_text(p, r.dflt_src[l], policy_limit_name(l));
		}
		subj.ngroups = 0;
		subj.user = "nobody";
		policy_resolve(p, &subj, &r);
		policy_free(p);
	} else if (p != NULL) {
		abort();        /* *ret must be untouched on failure */
	}
	return 0;
}
