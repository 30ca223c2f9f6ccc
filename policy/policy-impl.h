/* SPDX-License-Identifier: MIT */
/* Inside the policy library: the layout of struct policy, shared by parse.c and parse-value.c
 * (which fill it), resolve.c (which decides from it) and describe.c (which prints it).  Not
 * for use outside policy/. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"
#include "policy.h"

/* Keys, as bits in a per-section "seen" mask. */
enum key {
	K_MEMORY, /* the first _POLICY_LIMIT_MAX match enum policy_limit */
	K_CPU,
	K_PIDS,
	K_DISK,
	K_TIMEOUT,
	K_SANDBOXES,
	K_TOTAL_MEMORY, /* the sum of a user's sandboxes (the per-user cgroup level) */
	K_TOTAL_CPU,
	K_TOTAL_PIDS,
	K_NET,
	K_FS,
	K_ALLOW,
	K_CGROUP_ROOT,
	K_WORKSPACE_ROOT,
	K_ALLOW_GROUPS,
	K_ALLOW_USERS,
	_K_MAX,
};

/* "memory", "cpu", ...: the key as written in the file (names.c). */
extern const char *const policy_key_names[_K_MAX];

#define KM(k) (1u << (k))
#define LIMIT_KEYS                                                                              \
	(KM(K_MEMORY) | KM(K_CPU) | KM(K_PIDS) | KM(K_DISK) | KM(K_TIMEOUT) | KM(K_SANDBOXES) | \
	 KM(K_TOTAL_MEMORY) | KM(K_TOTAL_CPU) | KM(K_TOTAL_PIDS) | KM(K_NET) | KM(K_FS))

/* The settings of one section ([limits], [defaults], [group:X] or [user:X]). */
struct settings {
	unsigned set; /* KM() of the keys present */
	uint64_t v[_POLICY_LIMIT_MAX];
	uint64_t sandboxes;
	uint64_t total[3]; /* K_TOTAL_MEMORY, K_TOTAL_CPU, K_TOTAL_PIDS */
	enum policy_net net;
	enum policy_fs fs;
	bool allow;
	unsigned line[_K_MAX];    /* where each key present was set (policy check) */
	uint32_t text_at[_K_MAX]; /* 1 + its value's offset in the policy's text pool, as
					 * written (policy check, policy show); 0 = not set */
};

struct entry {
	char name[POLICY_NAME_MAX + 1];
	unsigned line; /* of its header */
	struct settings s;
};

struct policy {
	char cgroup_root[POLICY_PATH_MAX];
	char workspace_root[POLICY_PATH_MAX];
	char *allow_groups[POLICY_LIST_MAX];
	size_t n_allow_groups;
	bool allow_groups_set;
	char *allow_users[POLICY_LIST_MAX];
	size_t n_allow_users;
	bool allow_users_set;
	unsigned allow_groups_line, allow_users_line;
	struct settings limits, defaults;
	struct entry *groups, *users;
	size_t n_groups, n_users;
	char *texts; /* the limit values as written, NUL-separated */
	size_t texts_len;
};

static inline struct entry *
find_entry(struct entry *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].name, name))
			return &v[i];
	return NULL;
}
