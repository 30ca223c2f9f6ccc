/* SPDX-License-Identifier: MIT */
/* The admin's policy (/etc/sandcap/sandbox.ini): parse, trust-check, resolve.
 * Pure functions except policy_read_trusted(); no privilege, no cgroup access.
 * Linked by both the front-end (sandcap policy check/show, early refusals) and the helper
 * (which decides).  See sandbox.ini(5) for the format and the resolution rules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define POLICY_FILE_MAX (64 * 1024)
#define POLICY_NAME_MAX 32 /* user and group names in section headers */
#define POLICY_PATH_MAX 256
#define POLICY_ERR_MAX  256
#define POLICY_LINE_MAX \
	196                                    /* bytes per line, line ending excluded: libinih's
					 * 200-byte buffer minus CR, LF, NUL and one spare */
#define POLICY_LIST_MAX 64                     /* names in allow_groups / allow_users */
#define POLICY_SRC_MAX  (POLICY_NAME_MAX + 48) /* "[defaults] (capped by [group:x])" */

/* The largest value a limit may have, here and on sandcap run's command line (args.c), so
 * that the two accept the same range. */
#define POLICY_SIZE_MAX \
	(UINT64_C(1) << 60)                /* 1 EiB: keeps UINT64_MAX a sentinel,
							 * and RLIM_INFINITY out of reach */
#define POLICY_CPU_MAX        (100 * 1024) /* percent: 1024 CPUs */
#define POLICY_PIDS_MAX       4194304      /* the kernel's PID_MAX_LIMIT */
#define POLICY_TIMEOUT_MAX_MS (UINT64_C(366) * 24 * 3600 * 1000)

/* The limits a request can carry and the policy can bound.  Units: bytes for memory and
 * disk, percent of one CPU for cpu, a count for pids, milliseconds for timeout. */
enum policy_limit {
	POLICY_MEMORY,
	POLICY_CPU,
	POLICY_PIDS,
	POLICY_DISK,
	POLICY_TIMEOUT,
	_POLICY_LIMIT_MAX,
};

/* Ordered from the least to the most strict: a requirement is met by itself or anything
 * stricter.  proxy is below loopback: its allow-list is the caller's, and may name any
 * loopback port.  These are also the wire values of CREATE's net (PROTOCOL.md 3.2). */
enum policy_net {
	POLICY_NET_HOST = 0,
	POLICY_NET_PROXY = 1,
	POLICY_NET_LOOPBACK = 2,
	POLICY_NET_NONE = 3,
};
enum policy_fs { POLICY_FS_NONE = 0, POLICY_FS_RO = 1, POLICY_FS_STRICT = 2 };

struct policy; /* opaque; its layout is in policy-impl.h, inside policy/ */

/* Parse text (len bytes, may contain NULs: they are an error).  filename is used in
 * messages only.  On success *ret is a new object.  On failure nothing is allocated,
 * *ret is untouched, *reterr_line is the 1-based line (0 if not line-specific) and
 * errbuf holds "FILE:LINE: message". */
int policy_parse_string(const char *text, size_t len, const char *filename, struct policy **ret,
			unsigned *reterr_line, char *errbuf, size_t errlen);

/* Every error in the file, for `sandcap policy check`: calls cb once per "FILE:LINE: message".
 * Returns the number of errors (0 = valid) or -errno for I/O failures. */
int policy_check_string(const char *text, size_t len, const char *filename,
			void (*cb)(const char *msg, void *userdata), void *userdata);

struct policy *policy_free(struct policy *p);

/* Open path with O_NOFOLLOW and verify, on the fd: regular file, owned by root, not
 * writable by group or other, size <= POLICY_FILE_MAX, and every parent directory
 * root-owned and not writable by group or other.  On success *ret_text is a malloc'ed,
 * NUL-terminated copy and *ret_len its length.  On failure errbuf says which check
 * failed.  -ENOENT when the file does not exist. */
int policy_read_trusted(const char *path, char **ret_text, size_t *ret_len, char *errbuf,
			size_t errlen);

/* Which step of policy_load() failed. */
enum policy_load_step {
	POLICY_LOAD_OK,
	POLICY_LOAD_MISSING,   /* no such file (-ENOENT): no policy installed */
	POLICY_LOAD_UNTRUSTED, /* policy_read_trusted() refused it; errbuf says why */
	POLICY_LOAD_INVALID,   /* it does not parse; errbuf is "FILE:LINE: message" */
};

/* policy_read_trusted() and policy_parse_string(): the one way the helper and sandcap load
 * the installed policy.  0 with *ret; else -errno, *ret_step saying which step failed and
 * errbuf why (each caller words the refusal for its reader). */
int policy_load(const char *path, struct policy **ret, enum policy_load_step *ret_step,
		char *errbuf, size_t errlen);

/* Helper settings from [sandcap]. */
const char *policy_cgroup_root(const struct policy *p);
const char *policy_workspace_root(const struct policy *p);

/* The caller, as the helper sees it: name and groups come from NSS on the uid/gids the
 * kernel reported, never from the client. */
struct policy_subject {
	const char *user;          /* user name */
	const char *const *groups; /* names of all groups, primary included */
	size_t ngroups;
};

/* The most groups a caller is judged by: one in more is refused, by the helper and by
 * sandcap alike (judged by only some, it could escape a [group:] section). */
#define POLICY_GROUPS_MAX 1024

/* Who the caller is, by the C library's name services (subject.c). */
struct policy_caller {
	char *user;    /* NULL: the uid has no passwd entry */
	char **groups; /* the names of its groups, primary first (malloc'ed) */
	size_t ngroups;
	gid_t failed_gid; /* when a group lookup failed: that group */
};

/* The user name of uid and, when want_groups, the names of all its groups (getgrouplist(),
 * primary first).  A group without a name, or with one too long for any section, is
 * skipped: it matches nothing.  Returns 0; -ENOENT when uid has no passwd entry; -E2BIG
 * when the user is in more than max groups; the -errno of a group lookup that failed (the
 * group in failed_gid); -ENOMEM.  On failure no group is kept (user is, if known).  Free
 * with policy_caller_done() in every case. */
int policy_caller_lookup(uid_t uid, bool want_groups, size_t max, struct policy_caller *ret);
/* The same for a user by name, groups always (`sandcap policy show --user`). */
int policy_caller_lookup_name(const char *user, size_t max, struct policy_caller *ret);
/* Add the names of gids[0..n) to c->groups, by the same rules (at most max in all). */
int policy_caller_add_gids(struct policy_caller *c, const gid_t *gids, size_t n, size_t max);
void policy_caller_done(struct policy_caller *c);
/* c as policy_resolve() takes it (pointing into c). */
struct policy_subject policy_caller_subject(const struct policy_caller *c);

/* What one user may do. */
struct policy_resolved {
	bool allowed;
	char deny_reason[POLICY_ERR_MAX]; /* when !allowed: why, naming the section */

	uint64_t ceiling[_POLICY_LIMIT_MAX];                       /* UINT64_MAX = no ceiling */
	char ceiling_src[_POLICY_LIMIT_MAX][POLICY_NAME_MAX + 16]; /* "[user:alice]" */
	uint64_t dflt[_POLICY_LIMIT_MAX]; /* 0 = no default: not limited unless asked */
	char dflt_src[_POLICY_LIMIT_MAX][POLICY_SRC_MAX];

	uint64_t sandboxes; /* concurrent sandboxes per user */
	char sandboxes_src[POLICY_NAME_MAX + 16];

	/* The sum of all of a user's sandboxes (the per-user cgroup level): total_memory
	 * (bytes), total_cpu (percent of one CPU), total_pids.  UINT64_MAX = none. */
	uint64_t total[3];
	char total_src[3][POLICY_NAME_MAX + 16];

	enum policy_net net_required;
	enum policy_fs fs_required;
	char net_required_src[POLICY_SRC_MAX]; /* section that set it, or "built-in" */
	char fs_required_src[POLICY_SRC_MAX];
};

/* Resolve the ceilings, defaults and requirements for subject.  Never fails for a valid
 * policy (a denial is allowed = false with the reason). */
void policy_resolve(const struct policy *p, const struct policy_subject *subj,
		    struct policy_resolved *ret);

/* Check one requested value against the resolved ceiling.  Returns 0 if allowed, else
 * -EPERM with "memory 4 GiB is over the ceiling 2 GiB set by [group:builders]" in errbuf.
 * value 0 means "not requested" and is always allowed. */
int policy_check_request(const struct policy_resolved *r, enum policy_limit l, uint64_t value,
			 char *errbuf, size_t errlen);

/* policy_check_request() without the access check: the ceiling alone, which binds every
 * run of every user, allowed or not (sandbox.ini(5) "WHOM THE POLICY BINDS"). */
int policy_check_ceiling(const struct policy_resolved *r, enum policy_limit l, uint64_t value,
			 char *errbuf, size_t errlen);

/* Whether a run with net and fs meets r's requirements: 0, or -EPERM with every one it
 * misses in errbuf, each with the section that set it: "the policy requires --net none or
 * stricter (set by [group:ci]) and --fs ro or stricter (set by [limits]) for you".  Binds
 * every user, allowed or not. */
int policy_check_required(const struct policy_resolved *r, enum policy_net net, enum policy_fs fs,
			  char *errbuf, size_t errlen);

enum { POLICY_TOTAL_MEMORY, POLICY_TOTAL_CPU, POLICY_TOTAL_PIDS };
/* "total_memory", "total_cpu", "total_pids" */
const char *policy_total_name(int t);

/* The value of limit l a sandbox gets for request req (0 = not asked): the request; else
 * the default, capped at the ceiling; else the ceiling itself (not asking never means
 * unlimited where a ceiling exists).  0 = not limited.  Applied by the helper, and by
 * sandcap in user-cgroup mode. */
uint64_t policy_effective(const struct policy_resolved *r, enum policy_limit l, uint64_t req);

/* The workspace size for an effective disk limit (policy_effective()) under ceiling (the
 * resolved one; UINT64_MAX: none): tmpfs rounds a size up to whole pages, so disk is
 * rounded up to a multiple of page, or down where that would pass the ceiling.  0 in
 * *ret for 0 (no limit).  -ERANGE when not even one page fits under the ceiling (or
 * disk is within a page of UINT64_MAX), -EINVAL for a page size of 0. */
int policy_disk_pages(uint64_t disk, uint64_t ceiling, uint64_t page, uint64_t *ret);

/* "memory", "cpu", ... */
const char *policy_limit_name(enum policy_limit l);

/* Names and formats (names.c). */

/* "host"/"none"; "none"/"ro"/"strict". */
const char *policy_net_name(enum policy_net n);
/* "host", "proxy", "loopback", "none"; -EINVAL otherwise. */
int policy_net_parse(const char *v, enum policy_net *ret);
const char *policy_fs_name(enum policy_fs f);
/* "none", "ro", "strict"; -EINVAL otherwise. */
int policy_fs_parse(const char *v, enum policy_fs *ret);

/* A value of limit l as people read it: "2 GiB", "200%", "64", "30s"; UINT64_MAX gives
 * "none" (no ceiling) and 0 gives "unlimited" (no default). */
void policy_format_value(enum policy_limit l, uint64_t v, char *buf, size_t bufsz);

/* [sandcap] allow_groups / allow_users as written (0 entries = not set). */
size_t policy_allow_groups(const struct policy *p, const char *const **ret);

/* Whether any group matters to policy_resolve(): a [group:X] section or an allow_groups
 * entry.  When none does, callers may skip the (costly) NSS group lookup and resolve with
 * no groups: the result is the same. */
bool policy_names_groups(const struct policy *p);

/* Can name be the NAME of a [user:NAME] or [group:NAME] section (letters, digits, '_',
 * '.' and '-', not first; a final '$'; 1 to POLICY_NAME_MAX bytes)? */
bool policy_name_ok(const char *name);
/* The same for users: a [user:X] section or an allow_users entry.  When neither users nor
 * groups matter, policy_resolve() needs no name at all (subject user NULL). */
bool policy_names_users(const struct policy *p);

/* The value behind a source as `policy show` prints it ("[group:x]", "[defaults] (capped by
 * [limits])": the last section named) for key ("memory", "total_pids", ...), as the admin
 * wrote it ("1h"); NULL when that section does not set it (built-in). */
const char *policy_value_text(const struct policy *p, const char *src, const char *key);

/* Every user or group name the policy uses, with its line and where ("allow_users",
 * "[group:ci]"): for `policy check`, which looks them up where NSS is allowed. */
void policy_for_each_name(const struct policy *p,
			  void (*cb)(bool user, const char *name, unsigned line, const char *where,
				     void *userdata),
			  void *userdata);

/* Values that load but cannot do what they say: a [defaults] value above its [limits]
 * ceiling, a total_* below the per-sandbox ceiling, a default disk larger than every
 * memory ceiling.  cb gets "FILE:LINE: warning: ... fix"; returns how many. */
int policy_lint(const struct policy *p, const char *filename,
		void (*cb)(const char *msg, void *userdata), void *userdata);
