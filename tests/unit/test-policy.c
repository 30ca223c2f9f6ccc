/* SPDX-License-Identifier: MIT */
/* Unit tests for policy/: strict parsing (a table of malformed files, each failing at its
 * line with its reason), staging, resolution rules, request checks and trust checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "macro.h"
#include "policy.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)

static struct policy *
parse_ok(const char *text)
{
	struct policy *p = NULL;
	char err[512] = "";
	unsigned line = 99;
	int r = policy_parse_string(text, strlen(text), "t.ini", &p, &line, err, sizeof(err));

	if (r != 0)
		print_error("unexpected parse failure: %s\n", err);
	assert_int_equal(r, 0);
	assert_non_null(p);
	return p;
}

/* ---- malformed files ---------------------------------------------------------------- */

struct bad {
	const char *name;
	const char *text;       /* NULL: built by the test */
	unsigned line;
	const char *reason;     /* substring of the message */
};

static const struct bad bad_files[] = {
	{ "unknown key", "[limits]\nmemory = 1G\nfoo = 1\n", 3, "unknown key 'foo'" },
	{ "key of another section", "[sandcap]\nmemory = 1G\n", 2, "unknown key 'memory' in [sandcap]" },
	{ "sandboxes in defaults", "[defaults]\nsandboxes = 2\n", 2, "unknown key 'sandboxes'" },
	{ "allow in limits", "[limits]\nallow = no\n", 2, "unknown key 'allow'" },
	{ "net in defaults", "[defaults]\nnet = none\n", 2, "unknown key 'net'" },
	{ "unknown section", "[limits]\npids = 5\n\n[limitz]\npids = 4\n", 4, "unknown section [limitz]" },
	{ "unknown section prefix", "[groups:x]\n", 1, "unknown section" },
	{ "repeated key", "[limits]\nmemory = 1G\ncpu = 100%\nmemory = 2G\n", 4,
	  "repeated key 'memory' in [limits] (first set at line 2)" },
	{ "repeated key in user", "[user:a]\nallow = yes\nallow = no\n", 3, "repeated key 'allow'" },
	{ "continuation line", "[limits]\nmemory = 1G\n  2G\n", 3, "continuation" },
	{ "continuation tab", "[limits]\nmemory = 1G\n\tpids = 3\n", 3, "indented line" },
	{ "repeated section", "[limits]\npids = 5\n[defaults]\npids = 4\n[limits]\ncpu = 5\n", 5,
	  "section [limits] already appeared at line 1" },
	{ "repeated group section", "[group:a]\npids = 5\n[group:a]\n", 3, "already appeared at line 1" },
	{ "key before section", "memory = 1G\n[limits]\n", 1, "before any [section]" },
	{ "missing equals", "[limits]\nmemory 1G\n", 2, "expected KEY = VALUE" },
	{ "colon form", "[limits]\nmemory: 1G\n", 2, "'KEY: VALUE' form is not accepted" },
	{ "unterminated header", "[limits]\npids = 1\n[defaults\n", 3, "malformed section header" },
	{ "junk after header", "[limits] x\n", 1, "malformed section header" },
	{ "missing key", "[limits]\n= 5\n", 2, "missing key name" },
	{ "key uppercase", "[limits]\nMemory = 1G\n", 2, "invalid key name 'Memory'" },
	{ "key too long", "[limits]\nmemory_memory_memory_memory_memory_x = 1\n", 2, "invalid key name" },
	{ "memory -1", "[limits]\nmemory = -1\n", 2, "memory: invalid size '-1'" },
	{ "memory 0", "[limits]\nmemory = 0\n", 2, "memory: 0 is not allowed" },
	{ "memory 0K", "[limits]\nmemory = 0K\n", 2, "0 is not allowed" },
	{ "memory max", "[limits]\nmemory = max\n", 2, "not accepted: leave the key out" },
	{ "pids unlimited", "[user:x]\npids = unlimited\n", 2, "not accepted" },
	{ "memory bad unit", "[limits]\nmemory = 12X\n", 2, "invalid size '12X'" },
	{ "memory hex", "[limits]\nmemory = 0x10\n", 2, "invalid size '0x10'" },
	{ "memory blank inside", "[limits]\nmemory = 1 G\n", 2, "invalid size" },
	{ "memory huge", "[limits]\nmemory = 99999999999999999999\n", 2, "out of range" },
	{ "disk over 1 EiB", "[limits]\ndisk = 2048P\n", 2, "invalid size" },
	{ "disk 16777215T", "[limits]\ndisk = 16777215T\n", 2, "out of range" },
	{ "cpu 0%", "[limits]\ncpu = 0%\n", 2, "cpu: 0 is not allowed" },
	{ "cpu fraction", "[limits]\ncpu = 1.5%\n", 2, "invalid percentage" },
	{ "cpu too big", "[group:g]\ncpu = 102401%\n", 2, "out of range" },
	{ "pids 0", "[defaults]\npids = 0\n", 2, "0 is not allowed" },
	{ "pids too big", "[limits]\npids = 4194305\n", 2, "out of range (1..4194304)" },
	{ "pids signed", "[limits]\npids = +5\n", 2, "invalid number" },
	{ "sandboxes 0", "[limits]\nsandboxes = 0\n", 2, "0 is not allowed" },
	{ "total_memory in defaults", "[defaults]\ntotal_memory = 1G\n", 2,
	  "unknown key 'total_memory'" },
	{ "total_memory 0", "[limits]\ntotal_memory = 0\n", 2, "0 is not allowed" },
	{ "total_memory bad", "[limits]\ntotal_memory = 2X\n", 2, "total_memory: invalid size" },
	{ "total_cpu bad", "[user:a]\ntotal_cpu = lots\n", 2, "total_cpu: invalid percentage" },
	{ "total_pids too big", "[group:g]\ntotal_pids = 4194305\n", 2, "out of range" },
	{ "total_pids twice", "[limits]\ntotal_pids = 5\ntotal_pids = 6\n", 3, "repeated key" },
	{ "sandboxes 1025", "[limits]\nsandboxes = 1025\n", 2, "out of range (1..1024)" },
	{ "timeout 0", "[defaults]\ntimeout = 0\n", 2, "timeout: 0 is not allowed" },
	{ "timeout unit", "[limits]\ntimeout = 5d\n", 2, "invalid duration" },
	{ "timeout too long", "[limits]\ntimeout = 9000h\n", 2, "out of range" },
	{ "empty value", "[limits]\nmemory =\n", 2, "empty value" },
	{ "net bad", "[limits]\nnet = off\n", 2, "expected host, proxy, loopback or none" },
	{ "fs bad", "[user:u]\nfs = rw\n", 2, "expected none, ro or strict" },
	{ "allow bad", "[group:g]\nallow = true\n", 2, "expected yes or no" },
	{ "relative path", "[sandcap]\ncgroup_root = sys/fs/cgroup\n", 2, "not a clean absolute path" },
	{ "dotdot path", "[sandcap]\nworkspace_root = /run/../tmp\n", 2, "not a clean absolute path" },
	{ "double slash", "[sandcap]\nworkspace_root = /run//sandcap\n", 2, "not a clean absolute path" },
	{ "trailing slash", "[sandcap]\ncgroup_root = /sys/fs/cgroup/\n", 2, "not a clean" },
	{ "root path", "[sandcap]\ncgroup_root = /\n", 2, "not a clean" },
	{ "bad group list", "[sandcap]\nallow_groups = dev, -x\n", 2, "invalid name '-x'" },
	{ "bad user list", "[sandcap]\nallow_users = a/b\n", 2, "invalid name 'a/b'" },
	{ "bad section name", "[user:a/b]\n", 1, "invalid user name 'a/b'" },
	{ "empty section name", "[group:]\n", 1, "invalid group name ''" },
	{ "control char", "[limits]\nmemory = 1G\x01\n", 2, "control character 0x01" },
	{ "lone CR", "[limits]\nmemory = 1\rG\n", 2, "control character 0x0d" },
	{ "hash comment in value", "[limits]\nmemory = 1G # big\n", 2, "invalid size" },
	{ "error after good lines", "[sandcap]\n; c\n\n[limits]\nmemory = 1G\npids = 10\ncpu = 50%\n"
	  "disk = 1G\ntimeout = 1h\n[user:x]\nmemory = 2G\nmemory = 3G\n", 12, "repeated key" },
	/* Built by the test (NUL bytes, long lines). */
	{ "NUL byte", NULL, 3, "NUL byte" },
	{ "300-byte value", NULL, 2, "line is 314 bytes long; the limit is 196" },
	{ "60-byte group name", NULL, 2, "group name in [group:" },
	{ "60-byte user name", NULL, 1, "is 60 bytes long; the limit is 32" },
	{ "33-byte user name", NULL, 1, "is 33 bytes long" },
	{ "197-byte line", NULL, 2, "line is 197 bytes long" },
	{ "file over 64 KiB", NULL, 0, "file is larger than 65536 bytes" },
};

static char *
build_text(const char *name, size_t *ret_len)
{
	char *t = calloc(1, POLICY_FILE_MAX + 64);
	size_t n = 0;

	assert_non_null(t);
	if (strcmp(name, "NUL byte") == 0) {
		static const char s[] = "[limits]\nmemory = 1G\npids = 1\0 0\n";

		memcpy(t, s, sizeof(s) - 1);
		n = sizeof(s) - 1;
	} else if (strcmp(name, "300-byte value") == 0) {
		n = (size_t) sprintf(t, "[sandcap]\ncgroup_root = /");
		memset(t + n, 'a', 299);
		n += 299;
		t[n++] = '\n';
	} else if (strcmp(name, "60-byte group name") == 0) {
		n = (size_t) sprintf(t, "; x\n[group:");
		memset(t + n, 'g', 60);
		n += 60;
		n += (size_t) sprintf(t + n, "]\nmemory = 1G\n");
	} else if (strcmp(name, "60-byte user name") == 0 || strcmp(name, "33-byte user name") == 0) {
		size_t l = name[0] == '6' ? 60 : 33;

		n = (size_t) sprintf(t, "[user:");
		memset(t + n, 'u', l);
		n += l;
		n += (size_t) sprintf(t + n, "]\nallow = no\n");
	} else if (strcmp(name, "197-byte line") == 0) {
		n = (size_t) sprintf(t, "[limits]\n; ");
		memset(t + n, 'c', 195);
		n += 195;
		t[n++] = '\n';
	} else if (strcmp(name, "file over 64 KiB") == 0) {
		n = (size_t) sprintf(t, "[limits]\n");
		while (n < POLICY_FILE_MAX + 1)
			t[n++] = '\n';
	} else {
		fail_msg("no builder for %s", name);
	}
	*ret_len = n;
	return t;
}

static void
test_malformed_table(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		const struct bad *b = &bad_files[i];
		struct policy *sentinel = (struct policy *) (uintptr_t) 0x1234, *p = sentinel;
		char err[512] = "", want[64];
		unsigned line = 12345;
		char *owned = NULL;
		const char *text = b->text;
		size_t len;
		int r;

		if (text == NULL)
			text = owned = build_text(b->name, &len);
		else
			len = strlen(text);
		r = policy_parse_string(text, len, "t.ini", &p, &line, err, sizeof(err));
		if (r == 0 || line != b->line || strstr(err, b->reason) == NULL)
			fail_msg("case '%s': r=%d line=%u (want %u) err='%s' (want '%s')", b->name, r,
				 line, b->line, err, b->reason);
		assert_true(r < 0);
		/* A failed parse never touches *ret. */
		assert_ptr_equal(p, sentinel);
		/* "FILE:LINE: message" (or "FILE: message" when not line-specific). */
		if (b->line > 0)
			snprintf(want, sizeof(want), "t.ini:%u: ", b->line);
		else
			snprintf(want, sizeof(want), "t.ini: ");
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("case '%s': message '%s' does not start with '%s'", b->name, err, want);
		/* The checker agrees and reports at least that error. */
		assert_true(policy_check_string(text, len, "t.ini", NULL, NULL) >= 1);
		free(owned);
	}
}

static const char good[] =
	"\xef\xbb\xbf; the example of the first design, with CRLF on one line\n"
	"[sandcap]\n"
	"cgroup_root = /sys/fs/cgroup/sandcap     ; delegated parent\r\n"
	"workspace_root = /run/sandcap\n"
	"allow_groups = developers, builders\n"
	"allow_users = carol\n"
	"\n"
	"[limits]          ; ceilings\n"
	"memory = 2G\n"
	"cpu = 200%        ; 100% = one core\n"
	"pids = 256\n"
	"disk = 4G\n"
	"timeout = 1h\n"
	"sandboxes = 8\n"
	"net = host\n"
	"fs = none\n"
	"  ; an indented comment is fine\n"
	"[defaults]\n"
	"memory = 512M\n"
	"cpu = 100%\n"
	"pids = 64\n"
	"disk = 1G\n"
	"timeout = 10m\n"
	"\n"
	"[group:builders]\n"
	"memory = 8G\n"
	"cpu = 400%\n"
	"sandboxes = 16\n"
	"fs = ro\n"
	"[group:testers]\n"
	"memory = 4G\n"
	"pids = 1024\n"
	"timeout = 5m\n"
	"fs = strict\n"
	"net = none\n"
	"[group:interns]\n"
	"allow = no\n"
	"[group:guests]\n"
	"allow = yes\n"
	"memory = 256M\n"
	"[user:alice]\n"
	"memory = 1G\n"
	"fs = none\n"
	"[user:mallory]\n"
	"allow = no\n"
	"[user:ivan]\n"
	"allow = yes\n";

static void
resolve(const struct policy *p, const char *user, const char *g1, const char *g2,
	struct policy_resolved *r)
{
	const char *groups[2];
	struct policy_subject s = { .user = user, .groups = groups, .ngroups = 0 };

	if (g1)
		groups[s.ngroups++] = g1;
	if (g2)
		groups[s.ngroups++] = g2;
	memset(r, 0xa5, sizeof(*r));
	policy_resolve(p, &s, r);
}

/* The allow_users entries, as `policy check` sees them: "a b". */
static void
add_allow_user(bool user, const char *name, unsigned line, const char *where, void *userdata)
{
	char *buf = userdata;

	(void) line;
	if (!user || strcmp(where, "allow_users") != 0)
		return;
	if (buf[0] != '\0')
		strcat(buf, " ");
	strcat(buf, name);
}

static const char *
allow_users_of(const struct policy *p)
{
	static char buf[256];

	buf[0] = '\0';
	policy_for_each_name(p, add_allow_user, buf);
	return buf;
}

static void
test_good_file(void **state)
{
	struct policy *p = parse_ok(good);
	const char *const *names;

	(void) state;
	assert_string_equal(policy_cgroup_root(p), "/sys/fs/cgroup/sandcap");
	assert_string_equal(policy_workspace_root(p), "/run/sandcap");
	assert_int_equal(policy_allow_groups(p, &names), 2);
	assert_string_equal(names[0], "developers");
	assert_string_equal(names[1], "builders");
	assert_string_equal(allow_users_of(p), "carol");
	assert_int_equal(policy_check_string(good, strlen(good), "t.ini", NULL, NULL), 0);
	policy_free(p);
}

/* policy_names_groups: true exactly when a [group:X] section or an allow_groups entry
 * exists (the helper and sandcap then skip the NSS group lookup). */
static void
test_names_groups(void **state)
{
	static const char *const yes[] = {
		"[sandcap]\nallow_groups = dev\n",
		"[group:dev]\nmemory = 1G\n",
		"[sandcap]\nallow_users = carol\n[group:dev]\nallow = no\n",
	};
	static const char *const no[] = {
		"",
		"[limits]\nmemory = 1G\n[user:carol]\nmemory = 2G\n",
		"[sandcap]\nallow_users = carol\n",
	};
	struct policy *p;

	(void) state;
	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		p = parse_ok(yes[i]);
		assert_true(policy_names_groups(p));
		policy_free(p);
	}
	for (size_t i = 0; i < ELEMENTSOF(no); i++) {
		p = parse_ok(no[i]);
		assert_false(policy_names_groups(p));
		policy_free(p);
	}
	p = parse_ok(good);
	assert_true(policy_names_groups(p));
	policy_free(p);
}

static void
test_builtin_sandcap_defaults(void **state)
{
	struct policy *p = parse_ok("");
	struct policy_resolved r;

	(void) state;
	assert_string_equal(policy_cgroup_root(p), "/sys/fs/cgroup/sandcap");
	assert_string_equal(policy_workspace_root(p), "/run/sandcap");
	/* An empty policy: everyone allowed, no ceilings, no defaults. */
	resolve(p, "anyone", NULL, NULL, &r);
	assert_true(r.allowed);
	for (int l = 0; l < _POLICY_LIMIT_MAX; l++) {
		assert_true(r.ceiling[l] == UINT64_MAX);
		assert_string_equal(r.ceiling_src[l], "built-in");
		assert_true(r.dflt[l] == 0);
	}
	assert_true(r.sandboxes == UINT64_MAX);
	assert_int_equal(r.net_required, POLICY_NET_HOST);
	assert_int_equal(r.fs_required, POLICY_FS_NONE);
	policy_free(p);
}

static void
test_failed_parse_keeps_previous(void **state)
{
	struct policy *p = parse_ok("[sandcap]\ncgroup_root = /a/b\n"), *old = p;
	char err[256];
	unsigned line = 0;

	(void) state;
	static const char bad[] = "[sandcap]\ncgroup_root = /c/d\n[limits]\nmemory = -1\n";
	assert_int_equal(policy_parse_string(bad, strlen(bad), "t.ini", &p, &line, err,
					     sizeof(err)), -EINVAL);
	assert_ptr_equal(p, old);
	assert_int_equal(line, 4);
	/* The earlier, valid part of the bad file was not adopted. */
	assert_string_equal(policy_cgroup_root(p), "/a/b");
	policy_free(p);
}

struct collected {
	char msgs[8][512];
	int n;
};

static void
collect(const char *msg, void *userdata)
{
	struct collected *c = userdata;

	if (c->n < 8)
		snprintf(c->msgs[c->n], sizeof(c->msgs[0]), "%s", msg);
	c->n++;
}

static void
test_check_reports_every_error_in_order(void **state)
{
	static const char t[] =
		"[limits]\n"
		"memory = 1G\n"
		"memory = 2G\n"         /* 3: repeated (found by the handler) */
		"  cont\n"              /* 4: continuation (found by the reader) */
		"[bogus]\n"             /* 5 */
		"x = 1\n"               /* not reported: inside an unknown section */
		"[defaults]\n"
		"cpu = 0%\n";           /* 8 */
	struct collected c = {};

	(void) state;
	assert_int_equal(policy_check_string(t, sizeof(t) - 1, "f.ini", collect, &c), 4);
	assert_int_equal(c.n, 4);
	assert_non_null(strstr(c.msgs[0], "f.ini:3: repeated key 'memory'"));
	assert_non_null(strstr(c.msgs[1], "f.ini:4: indented line"));
	assert_non_null(strstr(c.msgs[2], "f.ini:5: unknown section [bogus]"));
	assert_non_null(strstr(c.msgs[3], "f.ini:8: cpu: 0 is not allowed"));
}

static void
test_units(void **state)
{
	struct policy *p = parse_ok("[limits]\nmemory = 1.5G\ncpu = 250\npids = 4194304\n"
				    "disk = 512KiB\ntimeout = 1.5s\nsandboxes = 1024\n");
	struct policy_resolved r;

	(void) state;
	resolve(p, "u", NULL, NULL, &r);
	assert_true(r.ceiling[POLICY_MEMORY] == 3 * GiB / 2);
	assert_true(r.ceiling[POLICY_CPU] == 250);
	assert_true(r.ceiling[POLICY_PIDS] == 4194304);
	assert_true(r.ceiling[POLICY_DISK] == 512 * 1024);
	assert_true(r.ceiling[POLICY_TIMEOUT] == 1500);
	assert_true(r.sandboxes == 1024);
	assert_string_equal(r.sandboxes_src, "[limits]");
	policy_free(p);
}

/* ---- resolution --------------------------------------------------------------------- */

/* The per-user totals: [user:X], else the most generous group, else [limits], else none. */
static void
test_totals(void **state)
{
	struct policy *p = parse_ok("[limits]\ntotal_memory = 4G\ntotal_pids = 500\n"
				    "[group:big]\ntotal_memory = 16G\ntotal_cpu = 800%\n"
				    "[group:small]\ntotal_memory = 8G\n"
				    "[user:alice]\ntotal_memory = 1G\n");
	struct policy_resolved r;

	(void) state;
	resolve(p, "bob", NULL, NULL, &r);
	assert_true(r.total[POLICY_TOTAL_MEMORY] == 4 * GiB);
	assert_string_equal(r.total_src[POLICY_TOTAL_MEMORY], "[limits]");
	assert_true(r.total[POLICY_TOTAL_CPU] == UINT64_MAX);
	assert_string_equal(r.total_src[POLICY_TOTAL_CPU], "built-in");
	assert_true(r.total[POLICY_TOTAL_PIDS] == 500);
	resolve(p, "bob", "small", "big", &r);
	assert_true(r.total[POLICY_TOTAL_MEMORY] == 16 * GiB);
	assert_string_equal(r.total_src[POLICY_TOTAL_MEMORY], "[group:big]");
	assert_true(r.total[POLICY_TOTAL_CPU] == 800);
	resolve(p, "alice", "big", NULL, &r);
	assert_true(r.total[POLICY_TOTAL_MEMORY] == GiB);
	assert_string_equal(r.total_src[POLICY_TOTAL_MEMORY], "[user:alice]");
	assert_true(r.total[POLICY_TOTAL_CPU] == 800);
	assert_string_equal(policy_total_name(POLICY_TOTAL_PIDS), "total_pids");
	policy_free(p);
}

static void
test_user_in_two_groups(void **state)
{
	struct policy *p = parse_ok(good);
	struct policy_resolved r;

	(void) state;
	resolve(p, "bob", "builders", "testers", &r);
	assert_true(r.allowed);
	/* The most generous group per limit. */
	assert_true(r.ceiling[POLICY_MEMORY] == 8 * GiB);
	assert_string_equal(r.ceiling_src[POLICY_MEMORY], "[group:builders]");
	assert_true(r.ceiling[POLICY_CPU] == 400);
	assert_string_equal(r.ceiling_src[POLICY_CPU], "[group:builders]");
	assert_true(r.ceiling[POLICY_PIDS] == 1024);
	assert_string_equal(r.ceiling_src[POLICY_PIDS], "[group:testers]");
	/* Neither group sets disk: [limits]. */
	assert_true(r.ceiling[POLICY_DISK] == 4 * GiB);
	assert_string_equal(r.ceiling_src[POLICY_DISK], "[limits]");
	/* A group below [limits] still beats it (5m < 1h). */
	assert_true(r.ceiling[POLICY_TIMEOUT] == 5 * 60 * 1000);
	assert_string_equal(r.ceiling_src[POLICY_TIMEOUT], "[group:testers]");
	/* Default above the ceiling is capped and says so. */
	assert_true(r.dflt[POLICY_TIMEOUT] == 5 * 60 * 1000);
	assert_string_equal(r.dflt_src[POLICY_TIMEOUT], "[defaults] (capped by [group:testers])");
	assert_true(r.dflt[POLICY_MEMORY] == 512 * MiB);
	assert_string_equal(r.dflt_src[POLICY_MEMORY], "[defaults]");
	assert_true(r.sandboxes == 16);
	assert_string_equal(r.sandboxes_src, "[group:builders]");
	/* Isolation: the least strict of the groups that set it. */
	assert_int_equal(r.fs_required, POLICY_FS_RO);
	assert_int_equal(r.net_required, POLICY_NET_NONE);

	/* Same result whatever the order of the groups. */
	struct policy_resolved r2;
	resolve(p, "bob", "testers", "builders", &r2);
	assert_memory_equal(r.ceiling, r2.ceiling, sizeof(r.ceiling));
	assert_memory_equal(r.ceiling_src, r2.ceiling_src, sizeof(r.ceiling_src));
	policy_free(p);
}

static void
test_user_beats_groups(void **state)
{
	struct policy *p = parse_ok(good);
	struct policy_resolved r;

	(void) state;
	/* alice sets memory = 1G, lower than builders' 8G: the user section wins anyway. */
	resolve(p, "alice", "builders", NULL, &r);
	assert_true(r.allowed);
	assert_true(r.ceiling[POLICY_MEMORY] == GiB);
	assert_string_equal(r.ceiling_src[POLICY_MEMORY], "[user:alice]");
	assert_true(r.ceiling[POLICY_CPU] == 400);
	assert_int_equal(r.fs_required, POLICY_FS_NONE);
	policy_free(p);
}

static void
test_default_capped_and_from_ceiling(void **state)
{
	struct policy *p = parse_ok("[limits]\nmemory = 256M\npids = 10\n"
				    "[defaults]\nmemory = 512M\n");
	struct policy_resolved r;

	(void) state;
	resolve(p, "u", NULL, NULL, &r);
	assert_true(r.dflt[POLICY_MEMORY] == 256 * MiB);
	assert_string_equal(r.dflt_src[POLICY_MEMORY], "[defaults] (capped by [limits])");
	/* No [defaults] value: the ceiling. */
	assert_true(r.dflt[POLICY_PIDS] == 10);
	assert_non_null(strstr(r.dflt_src[POLICY_PIDS], "[limits]"));
	/* Neither: 0, not limited unless asked. */
	assert_true(r.ceiling[POLICY_CPU] == UINT64_MAX);
	assert_true(r.dflt[POLICY_CPU] == 0);
	policy_free(p);
}

static void
test_long_names_in_sources(void **state)
{
	struct policy *p = parse_ok("[defaults]\ntimeout = 1h\n"
				    "[group:gggggggggggggggggggggggggggggggg]\ntimeout = 1m\n");
	struct policy_resolved r;

	(void) state;
	resolve(p, "u", "gggggggggggggggggggggggggggggggg", NULL, &r);
	assert_string_equal(r.dflt_src[POLICY_TIMEOUT],
			    "[defaults] (capped by [group:gggggggggggggggggggggggggggggggg])");
	policy_free(p);
}

static void
test_denials(void **state)
{
	struct policy *p = parse_ok(good);
	struct policy_resolved r;

	(void) state;
	resolve(p, "mallory", "builders", NULL, &r);
	assert_false(r.allowed);
	assert_non_null(strstr(r.deny_reason, "[user:mallory] allow = no"));

	/* Not in allow_groups/allow_users. */
	resolve(p, "dave", "users", NULL, &r);
	assert_false(r.allowed);
	assert_non_null(strstr(r.deny_reason, "allow_groups"));
	resolve(p, "dave", NULL, NULL, &r);
	assert_false(r.allowed);

	/* In allow_groups; in allow_users; in a group whose section says allow = yes. */
	resolve(p, "dave", "developers", NULL, &r);
	assert_true(r.allowed);
	resolve(p, "carol", NULL, NULL, &r);
	assert_true(r.allowed);
	resolve(p, "gina", "guests", NULL, &r);
	assert_true(r.allowed);
	assert_true(r.ceiling[POLICY_MEMORY] == 256 * MiB);

	/* A group with allow = no denies even members of allowed groups... */
	resolve(p, "ian", "developers", "interns", &r);
	assert_false(r.allowed);
	assert_non_null(strstr(r.deny_reason, "[group:interns] allow = no"));
	/* ...unless their user section says allow = yes, which also overrides allow_groups. */
	resolve(p, "ivan", "interns", NULL, &r);
	assert_true(r.allowed);

	char err[256];
	resolve(p, "mallory", NULL, NULL, &r);
	assert_int_equal(policy_check_request(&r, POLICY_PIDS, 1, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mallory"));
	policy_free(p);
}

static void
test_check_request(void **state)
{
	struct policy *p = parse_ok(good);
	struct policy_resolved r;
	char err[256] = "";

	(void) state;
	resolve(p, "bob", "builders", NULL, &r);
	assert_int_equal(policy_check_request(&r, POLICY_MEMORY, 8 * GiB, err, sizeof(err)), 0);
	assert_int_equal(policy_check_request(&r, POLICY_MEMORY, 0, err, sizeof(err)), 0);
	assert_int_equal(policy_check_request(&r, POLICY_MEMORY, 8 * GiB + 1, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "over the ceiling 8 GiB set by [group:builders]"));
	assert_int_equal(policy_check_request(&r, POLICY_DISK, 5 * GiB, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "disk 5 GiB is over the ceiling 4 GiB set by [limits]"));
	assert_int_equal(policy_check_request(&r, _POLICY_LIMIT_MAX, 1, err, sizeof(err)),
			 -EINVAL);
	policy_free(p);
}

static void
test_read_trusted(void **state)
{
	char err[POLICY_ERR_MAX] = "";
	char *text = NULL;
	size_t len = 0;

	(void) state;
	/* /etc/passwd: root-owned 0644 under root-owned 0755 parents on any sane system. */
	assert_int_equal(policy_read_trusted("/etc/passwd", &text, &len, err, sizeof(err)), 0);
	assert_non_null(text);
	assert_true(len > 0 && strlen(text) == len);
	free(text);
	text = NULL;

	assert_int_equal(policy_read_trusted("/etc/sandcap-no-such-file.ini", &text, &len, err,
					     sizeof(err)), -ENOENT);
	assert_null(text);
	assert_int_equal(policy_read_trusted("/dev/null", &text, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "not a regular file"));
	/* /tmp is 1777: anyone could swap the file. */
	assert_int_equal(policy_read_trusted("/tmp/x.ini", &text, &len, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "directory /tmp is writable"));
	/* /proc/self is a symlink. */
	assert_int_equal(policy_read_trusted("/proc/self/status", &text, &len, err, sizeof(err)),
			 -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_null(text);
}

static void
test_format_value(void **state)
{
	char b[32];

	(void) state;
	policy_format_value(POLICY_MEMORY, 2 * GiB, b, sizeof(b));
	assert_string_equal(b, "2 GiB");
	policy_format_value(POLICY_CPU, 150, b, sizeof(b));
	assert_string_equal(b, "150%");
	policy_format_value(POLICY_PIDS, UINT64_MAX, b, sizeof(b));
	assert_string_equal(b, "none");
	policy_format_value(POLICY_TIMEOUT, 0, b, sizeof(b));
	assert_string_equal(b, "unlimited");
	assert_string_equal(policy_limit_name(POLICY_DISK), "disk");
	assert_string_equal(policy_fs_name(POLICY_FS_STRICT), "strict");
	assert_string_equal(policy_net_name(POLICY_NET_NONE), "none");
}

/* tmpfs rounds a size up to whole pages: up where the ceiling allows, else down to the
 * pages under it, and refused when not one page fits. */
static void
test_disk_pages(void **state)
{
	uint64_t v = 1;

	(void) state;
	assert_int_equal(policy_disk_pages(0, 8192, 4096, &v), 0);
	assert_int_equal(v, 0);                         /* no limit stays none */
	assert_int_equal(policy_disk_pages(4096, 8192, 4096, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(policy_disk_pages(1, UINT64_MAX, 4096, &v), 0);
	assert_int_equal(v, 4096);                      /* no ceiling: up */
	assert_int_equal(policy_disk_pages(5000, 1000000, 4096, &v), 0);
	assert_int_equal(v, 8192);
	/* 1000000 is 244.14 pages: 245 would pass the ceiling, so 244. */
	assert_int_equal(policy_disk_pages(1000000, 1000000, 4096, &v), 0);
	assert_int_equal(v, 999424);
	assert_int_equal(policy_disk_pages(999999, 1000000, 4096, &v), 0);
	assert_int_equal(v, 999424);
	assert_int_equal(policy_disk_pages(1000, 1000, 4096, &v), -ERANGE);
	assert_int_equal(v, 0);
	assert_int_equal(policy_disk_pages(UINT64_MAX - 1, UINT64_MAX, 4096, &v), -ERANGE);
	assert_int_equal(policy_disk_pages(4096, 8192, 0, &v), -EINVAL);
}

/* policy check's warnings: each with its line, the other line and the fix; a coherent
 * file has none. */
static void
test_lint(void **state)
{
	static const char t[] =
		"[limits]\n"
		"memory = 2G\n"                 /* 2 */
		"timeout = 30m\n"               /* 3 */
		"total_memory = 1G\n"           /* 4: below memory */
		"[defaults]\n"
		"memory = 3G\n"                 /* 6: above its ceiling */
		"disk = 4G\n"                   /* 7: larger than every memory ceiling */
		"timeout = 1h\n"                /* 8: above its ceiling */
		"[group:big]\n"
		"memory = 3G\n"                 /* 10: the largest memory ceiling */
		"total_pids = 10\n"             /* no pids ceiling to compare with */
		"[user:u]\n"
		"pids = 64\n"
		"total_pids = 32\n";            /* 14: below the section's own pids */
	struct policy *p = parse_ok(t);
	struct collected c = {};

	(void) state;
	assert_int_equal(policy_lint(p, "f.ini", collect, &c), 5);
	assert_int_equal(c.n, 5);
	assert_non_null(strstr(c.msgs[0], "f.ini:6: warning: [defaults] memory = 3G is above its "
			       "ceiling memory = 2G in [limits] (line 2)"));
	assert_non_null(strstr(c.msgs[0], "lower the default to at most 2G"));
	assert_non_null(strstr(c.msgs[1], "f.ini:8: warning: [defaults] timeout = 1h is above"));
	assert_non_null(strstr(c.msgs[2], "f.ini:4: warning: [limits] total_memory = 1G is below "
			       "the per-sandbox ceiling memory = 2G in [limits] (line 2)"));
	assert_non_null(strstr(c.msgs[2], "raise total_memory to at least 2G"));
	assert_non_null(strstr(c.msgs[3], "f.ini:14: warning: [user:u] total_pids = 32 is below "
			       "the per-sandbox ceiling pids = 64 in [user:u] (line 13)"));
	assert_non_null(strstr(c.msgs[4], "f.ini:7: warning: [defaults] disk = 4G is larger than "
			       "every memory ceiling (the largest: 3G in [group:big], line 10)"));
	policy_free(p);

	/* Coherent: nothing to say.  No [limits] memory: some user has no memory ceiling,
	 * so no disk default can be larger than all of them. */
	p = parse_ok("[limits]\nmemory = 2G\ntotal_memory = 4G\n[defaults]\nmemory = 1G\n"
		     "disk = 1G\n");
	assert_int_equal(policy_lint(p, "f.ini", NULL, NULL), 0);
	policy_free(p);
	p = parse_ok("[defaults]\ndisk = 8G\n[group:g]\nmemory = 1G\n");
	assert_int_equal(policy_lint(p, "f.ini", NULL, NULL), 0);
	policy_free(p);
}

static void
each_name(bool user, const char *name, unsigned line, const char *where, void *userdata)
{
	struct collected *c = userdata;

	if (c->n < 8)
		snprintf(c->msgs[c->n], sizeof(c->msgs[0]), "%s %s %u %s", user ? "user" : "group",
			 name, line, where);
	c->n++;
}

/* Every name the file uses, with its line, for policy check's lookups. */
static void
test_for_each_name(void **state)
{
	struct policy *p = parse_ok("[sandcap]\nallow_groups = sandcp, dev\nallow_users = al\n"
				    "[group:mlteem]\npids = 8\n[user:mallroy]\nallow = no\n");
	struct collected c = {};

	(void) state;
	policy_for_each_name(p, each_name, &c);
	assert_int_equal(c.n, 5);
	assert_string_equal(c.msgs[0], "user al 3 allow_users");
	assert_string_equal(c.msgs[1], "group sandcp 2 allow_groups");
	assert_string_equal(c.msgs[2], "group dev 2 allow_groups");
	assert_string_equal(c.msgs[3], "user mallroy 6 [user:mallroy]");
	assert_string_equal(c.msgs[4], "group mlteem 4 [group:mlteem]");
	policy_free(p);
}

/* policy show prints a value as the admin wrote it, found from its source. */
static void
test_value_text(void **state)
{
	struct policy *p = parse_ok("[limits]\ntimeout = 1h\nmemory = 2G\n[defaults]\n"
				    "timeout = 90m\n[group:t]\ntimeout = 5m\n");

	(void) state;
	assert_string_equal(policy_value_text(p, "[limits]", "timeout"), "1h");
	assert_string_equal(policy_value_text(p, "[limits]", "memory"), "2G");
	assert_string_equal(policy_value_text(p, "[defaults]", "timeout"), "90m");
	assert_string_equal(policy_value_text(p, "[defaults] (capped by [group:t])", "timeout"),
			    "5m");
	assert_string_equal(policy_value_text(p, "[limits] (the ceiling)", "memory"), "2G");
	assert_null(policy_value_text(p, "built-in", "timeout"));
	assert_null(policy_value_text(p, "[limits]", "pids"));
	assert_null(policy_value_text(p, "[group:nope]", "timeout"));
	policy_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_table),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_builtin_sandcap_defaults),
		cmocka_unit_test(test_names_groups),
		cmocka_unit_test(test_failed_parse_keeps_previous),
		cmocka_unit_test(test_check_reports_every_error_in_order),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_user_in_two_groups),
		cmocka_unit_test(test_user_beats_groups),
		cmocka_unit_test(test_default_capped_and_from_ceiling),
		cmocka_unit_test(test_long_names_in_sources),
		cmocka_unit_test(test_denials),
		cmocka_unit_test(test_check_request),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_read_trusted),
		cmocka_unit_test(test_format_value),
		cmocka_unit_test(test_disk_pages),
		cmocka_unit_test(test_lint),
		cmocka_unit_test(test_for_each_name),
		cmocka_unit_test(test_value_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
