/* SPDX-License-Identifier: MIT */
/* The command's environment: --env-clear, --env NAME, --env NAME=VALUE, --env-deny GLOB.
 * Pure (no I/O, no getenv): the caller hands in its environment; unit-tested in
 * tests/unit/test-env.c.
 *
 * The result, in this order of precedence (a later rule wins over an earlier one):
 *   1. the caller's whole environment, or with --env-clear only ENV_CLEAR_KEEP's names
 *      (PATH HOME USER LOGNAME SHELL TERM LANG LC_* TZ TMPDIR) from it;
 *   2. minus every name matching an --env-deny GLOB (fnmatch(3), e.g. '*TOKEN*');
 *   3. plus each --env rule, in order: NAME passes the caller's value through if it is set
 *      (even if a GLOB matches: naming a variable is a deliberate choice), NAME=VALUE sets
 *      it; a later rule for the same name replaces an earlier one.
 * A name appears at most once; the first occurrence of a duplicated name in the caller's
 * environment is the one kept (as getenv() sees it). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define ENV_RULES_MAX 128

struct env_opts {
	bool clear;                     /* --env-clear */
	const char *env[ENV_RULES_MAX]; /* --env NAME or NAME=VALUE, as given */
	size_t n_env;
	const char *deny[ENV_RULES_MAX]; /* --env-deny GLOB */
	size_t n_deny;
};

/* The names --env-clear keeps; "LC_*" is a glob. */
extern const char *const env_clear_keep[];

/* Is s a valid --env argument (NAME or NAME=VALUE; NAME non-empty, of the portable
 * characters A-Z a-z 0-9 _ and not starting with a digit)?  0 or -EINVAL with the reason. */
int env_check_arg(const char *s, char *err, size_t errlen);
/* Is s a valid --env-deny GLOB (non-empty, no '=')?  0 or -EINVAL with the reason. */
int env_check_glob(const char *s, char *err, size_t errlen);

/* Add an --env / --env-deny rule after checking it.  0, or -EINVAL / -E2BIG with the reason
 * in err. */
int env_add(struct env_opts *o, const char *arg, char *err, size_t errlen);
int env_add_deny(struct env_opts *o, const char *glob, char *err, size_t errlen);

/* Is anything asked (else the environment is passed as it is)? */
bool env_active(const struct env_opts *o);

/* Build the command's environment from base (NULL-terminated "NAME=VALUE" strings, e.g.
 * environ).  *ret is a malloc'ed NULL-terminated array whose strings point into base and
 * into o (free only the array).  Returns the number of variables, or -ENOMEM. */
int env_build(const struct env_opts *o, char *const *base, char ***ret);

/* Set entry ("NAME=VALUE", not copied: it must outlive *v) in *v, a NULL-terminated array
 * that env_build() made: the first NAME replaced, else appended (*v is realloc'ed).
 * 0 or -ENOMEM. */
int env_put(char ***v, char *entry);

/* The value of the first "NAME=VALUE" in v (NULL-terminated), or NULL. */
const char *env_value(char *const *v, const char *name);

/* The length of the name in "NAME=VALUE" (the whole string if there is no '='). */
size_t env_name_len(const char *entry);

/* The environment the sandboxed command is exec'd with, made before the fork, so that the
 * child does not allocate between fork and exec: base with the first PWD entry
 * set to pwd (only when base has one; NULL: left alone) and the first TMPDIR entry set to
 * tmpdir, or TMPDIR=tmpdir appended (NULL: left alone) -- what setenv(NAME, VALUE, 1) does.
 * *ret is one malloc'ed block (free(*ret) frees all): a NULL-terminated array whose other
 * strings point into base.  *ret is NULL when nothing changes (use base).  0 or -ENOMEM. */
int env_for_exec(char *const *base, const char *pwd, const char *tmpdir, char ***ret);
