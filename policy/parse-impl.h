/* SPDX-License-Identifier: MIT */
/* Between the policy parser (parse.c: sections and keys) and its values (parse-value.c):
 * the parse context, its error list and the checks both use.  Not part of policy.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "policy-impl.h"

#define VALUE_MAX     64 /* any value but paths and name lists */
#define SANDBOXES_MAX 1024

enum section_kind {
	SEC_NONE, /* before any header, or after an invalid one */
	SEC_SANDCAP,
	SEC_LIMITS,
	SEC_DEFAULTS,
	SEC_GROUP,
	SEC_USER,
};

struct error {
	unsigned line;
	char msg[POLICY_ERR_MAX];
};

/* One accepted section header, numbered as the reader numbers them. */
struct section {
	enum section_kind kind;
	size_t idx;                /* into groups/users for SEC_GROUP/SEC_USER */
	unsigned key_line[_K_MAX]; /* the line of each key set in it, 0 = not yet */
};

struct parse_ctx {
	const char *filename;
	struct policy *p; /* staged */
	struct section *sections;
	size_t n_sections;
	struct error *errors;
	size_t n_errors;
	bool too_many;
	bool oom;
	unsigned seen_sandcap, seen_limits, seen_defaults; /* line of the header, 0 = none */
	unsigned *seen_group, *seen_user;                  /* line of each [group:]/[user:] */
};

/* An error at line, kept for `sandcap policy check` (at most ERRORS_MAX, then "too many"). */
void pctx_error(struct parse_ctx *c, unsigned line, const char *fmt, ...) _printf_(3, 4);
/* Untrusted text for a message: printable ASCII kept, the rest as \xNN, capped. */
const char *pctx_esc(const char *s, size_t len, char *buf, size_t bufsz);
#define ESC(s) pctx_esc((s), strlen(s), (char[64]){}, 64)
bool pctx_is_space(char ch);
/* A user or group name: 0, -EINVAL or -ENAMETOOLONG. */
int pctx_name_check(const char *s, size_t len);

/* The values (parse-value.c): a path (0 or -errno, no message), a list of user or group
 * names, a setting of [limits], [defaults], [group:] or [user:] into *s; the last two
 * report their own errors. */
int pctx_path(const char *v, char *out);
int pctx_name_list(struct parse_ctx *c, unsigned lineno, const char *key, const char *v, char **out,
		   size_t *ret_n);
int pctx_setting(struct parse_ctx *c, unsigned lineno, enum key k, const char *v,
		 struct settings *s);
