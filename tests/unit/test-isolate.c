/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/isolate/isolate.c: the --fs/--net parsers, the plan (with the kernel facts
 * given, so no Landlock or seccomp is needed), the Landlock rule list and the policy
 * requirement check; and, where the kernel has seccomp filters, the filter built before the
 * fork (isolate_seccomp_prepare) in a forked child. */
#include <errno.h>
#include <linux/filter.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "isolate/isolate.h"
#include "macro.h"
#include "isolate/seccomp-rules.h"
#include "isolate/seccomp-tpl.h"

/* Rights by bit number (include/uapi/linux/landlock.h). */
#define LL_EXECUTE    (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE  (1ULL << 2)
#define LL_READ_DIR   (1ULL << 3)
#define LL_MAKE_CHAR  (1ULL << 6)
#define LL_MAKE_REG   (1ULL << 8)
#define LL_MAKE_SOCK  (1ULL << 9)
#define LL_MAKE_BLOCK (1ULL << 11)
#define LL_REFER      (1ULL << 13)
#define LL_TRUNCATE   (1ULL << 14)
#define LL_IOCTL_DEV  (1ULL << 15)

static void
test_parse_fs(void **state)
{
	enum policy_fs fs = POLICY_FS_RO;

	(void) state;
	assert_int_equal(isolate_parse_fs("none", &fs), 0);
	assert_int_equal(fs, POLICY_FS_NONE);
	assert_int_equal(isolate_parse_fs("strict", &fs), 0);
	assert_int_equal(fs, POLICY_FS_STRICT);
	assert_int_equal(isolate_parse_fs("ro", &fs), 0);
	assert_int_equal(fs, POLICY_FS_RO);
	/* Rejected, and *ret untouched. */
	const char *bad[] = { "", "RO", "ro ", " ro", "read-only", "strict\n", "nonee", "0" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(isolate_parse_fs(bad[i], &fs), -EINVAL);
		assert_int_equal(fs, POLICY_FS_RO);
	}
	assert_int_equal(isolate_parse_fs(NULL, &fs), -EINVAL);
	for (int f = POLICY_FS_NONE; f <= POLICY_FS_STRICT; f++) {
		assert_int_equal(isolate_parse_fs(policy_fs_name(f), &fs), 0);
		assert_int_equal((int) fs, f);
	}
}

static void
test_parse_net(void **state)
{
	enum policy_net net = POLICY_NET_NONE;

	(void) state;
	assert_int_equal(isolate_parse_net("host", &net), 0);
	assert_int_equal(net, POLICY_NET_HOST);
	assert_int_equal(isolate_parse_net("none", &net), 0);
	assert_int_equal(net, POLICY_NET_NONE);
	assert_int_equal(isolate_parse_net("loopback", &net), 0);
	assert_int_equal(net, POLICY_NET_LOOPBACK);
	assert_int_equal(isolate_parse_net("proxy", &net), 0);
	assert_int_equal(net, POLICY_NET_PROXY);
	net = POLICY_NET_NONE;
	const char *bad[] = { "", "NONE", "off", "host ", "Loopback", "lo", "no", "proxy\n" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(isolate_parse_net(bad[i], &net), -EINVAL);
		assert_int_equal(net, POLICY_NET_NONE);
	}
	assert_int_equal(isolate_parse_net(NULL, &net), -EINVAL);
	assert_string_equal(policy_net_name(POLICY_NET_HOST), "host");
	assert_string_equal(policy_net_name(POLICY_NET_NONE), "none");
	assert_string_equal(policy_net_name(POLICY_NET_LOOPBACK), "loopback");
	assert_string_equal(policy_net_name(POLICY_NET_PROXY), "proxy");
	/* Strictness order: a requirement is met by itself or anything stricter. */
	assert_true(POLICY_NET_HOST < POLICY_NET_PROXY);
	assert_true(POLICY_NET_PROXY < POLICY_NET_LOOPBACK);
	assert_true(POLICY_NET_LOOPBACK < POLICY_NET_NONE);
}

static void
test_fs_mask_per_abi(void **state)
{
	(void) state;
	assert_true(isolate_landlock_fs_mask(0) == 0);
	assert_true(isolate_landlock_fs_mask(1) == 0x1fff);
	assert_true(isolate_landlock_fs_mask(2) == (0x1fff | LL_REFER));
	assert_true(isolate_landlock_fs_mask(3) == (0x1fff | LL_REFER | LL_TRUNCATE));
	assert_true(isolate_landlock_fs_mask(4) == isolate_landlock_fs_mask(3));
	assert_true(isolate_landlock_fs_mask(5) == 0xffff);
	assert_true(isolate_landlock_fs_mask(7) == 0xffff);
}

static const struct isolate_rule *
find_rule(const struct isolate_rule *rules, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (streq(rules[i].path, path))
			return &rules[i];
	return NULL;
}

/* find_rule() that must succeed (abort() tells the compiler it never returns NULL). */
static const struct isolate_rule *
must_find(const struct isolate_rule *rules, size_t n, const char *path)
{
	const struct isolate_rule *r = find_rule(rules, n, path);

	assert_non_null(r);
	if (r == NULL)
		abort();
	return r;
}

static void
test_rules_none(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_NONE, .workspace = "/ws" };
	struct isolate_rule rules[ISOLATE_RULES_MAX];
	size_t n = 99;
	uint64_t handled = 99;

	(void) state;
	assert_int_equal(isolate_fs_rules(&o, 7, "/tmp", rules, ELEMENTSOF(rules), &n, &handled), 0);
	assert_int_equal(n, 0);
	assert_true(handled == 0);
	/* No Landlock: nothing to build either. */
	o.fs = POLICY_FS_STRICT;
	assert_int_equal(isolate_fs_rules(&o, 0, "/tmp", rules, ELEMENTSOF(rules), &n, &handled), 0);
	assert_int_equal(n, 0);
}

static void
test_rules_ro(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_RO, .workspace = "/ws",
				  .rw = { "/data/out" }, .n_rw = 1 };
	struct isolate_rule rules[ISOLATE_RULES_MAX];
	const struct isolate_rule *r;
	uint64_t handled;
	size_t n;

	(void) state;
	assert_int_equal(isolate_fs_rules(&o, 7, "/tmp/x", rules, ELEMENTSOF(rules), &n, &handled),
			 0);
	assert_true(handled == 0xffff);
	r = must_find(rules, n, "/");
	assert_true(r->access == (LL_EXECUTE | LL_READ_FILE | LL_READ_DIR));
	/* Writable: workspace, TMPDIR, --rw; never device creation. */
	const char *w[] = { "/ws", "/tmp/x", "/data/out" };
	for (size_t i = 0; i < ELEMENTSOF(w); i++) {
		r = must_find(rules, n, w[i]);
		assert_true(r->access & LL_WRITE_FILE);
		assert_true(r->access & LL_MAKE_REG);
		assert_true(r->access & LL_REFER);
		assert_true(r->access & LL_TRUNCATE);
		assert_false(r->access & (LL_MAKE_CHAR | LL_MAKE_BLOCK));
		assert_non_null(r->origin);
	}
	assert_string_equal(must_find(rules, n, "/data/out")->origin, "--rw");
	/* Devices: /dev/null writable with truncate (for "> /dev/null") and ioctl. */
	r = must_find(rules, n, "/dev/null");
	assert_true(r->access == (LL_READ_FILE | LL_WRITE_FILE | LL_TRUNCATE | LL_IOCTL_DEV));
	r = must_find(rules, n, "/dev/urandom");
	assert_false(r->access & LL_WRITE_FILE);
	assert_non_null(find_rule(rules, n, "/dev/pts"));
	assert_non_null(find_rule(rules, n, "/dev/tty"));
	/* Only the listed paths are writable. */
	for (size_t i = 0; i < n; i++)
		if (rules[i].access & LL_WRITE_FILE)
			assert_true(strneq(rules[i].path, "/dev/", 5) || rules[i].origin != NULL);
}

static void
test_rules_strict(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_STRICT, .ro = { "/home/u/src" }, .n_ro = 1 };
	struct isolate_rule rules[ISOLATE_RULES_MAX];
	const struct isolate_rule *r;
	uint64_t handled;
	size_t n;

	(void) state;
	assert_int_equal(isolate_fs_rules(&o, 7, "/tmp", rules, ELEMENTSOF(rules), &n, &handled), 0);
	assert_null(find_rule(rules, n, "/"));
	assert_null(find_rule(rules, n, "/home"));
	const char *sys[] = { "/usr", "/etc", "/bin", "/lib", "/lib64", "/proc" };
	for (size_t i = 0; i < ELEMENTSOF(sys); i++) {
		r = must_find(rules, n, sys[i]);
		assert_true(r->access == (LL_EXECUTE | LL_READ_FILE | LL_READ_DIR));
	}
	r = must_find(rules, n, "/home/u/src");
	assert_string_equal(r->origin, "--ro");
	assert_false(r->access & LL_WRITE_FILE);
	/* No workspace given: only the temp dir is writable. */
	size_t writable = 0;
	for (size_t i = 0; i < n; i++)
		if ((rules[i].access & LL_MAKE_REG) != 0) {
			writable++;
			assert_string_equal(rules[i].path, "/tmp");
		}
	assert_int_equal(writable, 1);
}

static void
test_rules_masked_to_abi(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_RO, .workspace = "/ws" };
	struct isolate_rule rules[ISOLATE_RULES_MAX];
	uint64_t handled;
	size_t n;

	(void) state;
	assert_int_equal(isolate_fs_rules(&o, 1, NULL, rules, ELEMENTSOF(rules), &n, &handled), 0);
	assert_true(handled == 0x1fff);
	for (size_t i = 0; i < n; i++)
		assert_true((rules[i].access & ~handled) == 0);
	assert_false(must_find(rules, n, "/dev/null")->access & (LL_TRUNCATE | LL_IOCTL_DEV));
	assert_false(must_find(rules, n, "/ws")->access & LL_REFER);
}

static void
test_rules_overflow(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_STRICT, .n_rw = ISOLATE_PATHS_MAX,
				  .n_ro = ISOLATE_PATHS_MAX };
	struct isolate_rule rules[8];
	uint64_t handled = 7;
	size_t n = 7;

	(void) state;
	for (size_t i = 0; i < ISOLATE_PATHS_MAX; i++)
		o.rw[i] = o.ro[i] = "/x";
	assert_int_equal(isolate_fs_rules(&o, 7, "/tmp", rules, ELEMENTSOF(rules), &n, &handled),
			 -E2BIG);
	assert_int_equal(n, 7);
	/* The real maximum fits. */
	struct isolate_rule all[ISOLATE_RULES_MAX];
	assert_int_equal(isolate_fs_rules(&o, 7, "/tmp", all, ELEMENTSOF(all), &n, &handled), 0);
}

static void
test_plan_fs(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_RO };
	struct isolate_plan p;
	char err[256] = "";

	(void) state;
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.fs_enforcement, "landlock (ABI 7)");
	assert_string_equal(p.net_enforcement, "none");
	assert_true(p.landlock_fs);
	assert_false(p.landlock_net);
	assert_true(p.seccomp);         /* the TIOCSTI guard */

	/* No Landlock: an error naming the option and the fix... */
	assert_int_equal(isolate_plan_on(&o, 0, true, &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "sandcap: --fs ro: this kernel has no Landlock"));
	assert_non_null(strstr(err, "--fallback"));
	/* ...unless --fallback, and then the report says so. */
	o.fallback = true;
	assert_int_equal(isolate_plan_on(&o, 0, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.fs_enforcement, "none (no Landlock; --fallback)");
	assert_false(p.landlock_fs);

	/* Nothing asked: no isolation, but the supervisors' protection (#14 item 3). */
	struct isolate_opts none = { 0 };
	assert_int_equal(isolate_plan_on(&none, 7, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.fs_enforcement, "none");
	assert_string_equal(p.net_enforcement, "none");
	assert_false(p.landlock_fs || p.landlock_net);
	assert_true(p.seccomp && p.landlock_signal);
	/* Abstract sockets scoped with the gate on (unixgate.h: datagrams to abstract names
	 * outside refused too). */
	assert_int_equal(p.landlock_scope, isolate_unotify_available());
	assert_string_equal(p.protect_enforcement, "seccomp+landlock (ABI 7)");
	assert_int_equal(isolate_plan_on(&none, 5, true, &p, err, sizeof(err)), 0);
	assert_false(p.landlock_signal);
	assert_string_equal(p.protect_enforcement, "seccomp");
	/* The user's services over UNIX sockets: kept out by default (unixgate.h); without
	 * seccomp only --unix host or --fallback runs, and says so. */
	assert_int_equal(isolate_plan_on(&none, 7, true, &p, err, sizeof(err)), 0);
	if (isolate_unotify_available()) {
		assert_true(p.unix_notify);
		assert_non_null(strstr(p.unix_enforcement, "seccomp-notify + landlock"));
		assert_non_null(strstr(p.unix_enforcement, "except datagrams to paths"));
		assert_int_equal(isolate_plan_on(&none, 5, true, &p, err, sizeof(err)), 0);
		assert_false(p.landlock_scope);
		assert_non_null(strstr(p.unix_enforcement, "seccomp-notify: "));
	}
	assert_int_equal(isolate_plan_on(&none, 0, false, &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "--unix host"));
	none.unix_host = true;
	assert_int_equal(isolate_plan_on(&none, 0, false, &p, err, sizeof(err)), 0);
	assert_false(p.seccomp || p.landlock_signal || p.unix_notify);
	assert_string_equal(p.protect_enforcement, "none (no seccomp, no Landlock ABI 6)");
	assert_non_null(strstr(p.unix_enforcement, "none (--unix host)"));
	none.unix_host = false;
	none.fallback = true;
	assert_int_equal(isolate_plan_on(&none, 0, false, &p, err, sizeof(err)), 0);
	assert_non_null(strstr(p.unix_enforcement, "reachable"));
}

/* In a forked child: what the filter of --net none (and the supervisors' protection of
 * our pid) does once isolate_apply() loaded it.  Exit 0 when all holds, else the step. */
static _noreturn_ void
filtered_child(const struct isolate_opts *o, const struct isolate_plan *p)
{
	char err[256];
	int fd;

	/* Without the filter both work: the checks below can fail. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		_exit(10);
	(void) close(fd);
	if (kill(getppid(), 0) < 0)
		_exit(11);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(12);
	if (isolate_apply(o, p, err, sizeof(err)) < 0) {
		(void) !write(2, err, strlen(err));
		_exit(13);
	}
	if (socket(AF_INET, SOCK_STREAM, 0) >= 0 || errno != EAFNOSUPPORT)
		_exit(14);
	if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0 || errno != EPERM)
		_exit(15);
	if (kill(getppid(), 0) == 0 || errno != EPERM)
		_exit(16);
	_exit(0);
}

static int
run_filtered(const struct isolate_opts *o, const struct isolate_plan *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		filtered_child(o, p);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* isolate_seccomp_prepare() (issue 19): the program built before the fork is the one the
 * child enforces, and the same as the one the child builds itself without it; both from
 * the build-time template (a process group is set, as every run sets it) and from
 * libseccomp at run time (no process group: no template). */
static void
test_seccomp_prepared(void **state)
{
	struct isolate_opts o = { .net = POLICY_NET_NONE };
	static struct isolate_plan p;
	static struct sock_filter tpl[BPF_MAXINSNS];
	struct scrules_key k = { .net = POLICY_NET_NONE, .unix_closed = true };
	char err[256] = "";
	size_t tpl_len = 0;

	(void) state;
	if (!isolate_seccomp_available())
		skip();         /* no seccomp filters on this kernel */
	/* ABI 0: no Landlock layer, so only the filter stands between the child and both. */
	assert_int_equal(isolate_plan_on(&o, 0, true, &p, err, sizeof(err)), 0);
	protect_add(&p.protect, getpid());
	p.protect.pgid = getpgrp();

	/* The template, patched with our pid: what the child loads is exactly it. */
	assert_int_equal(sctpl_fill(&k, &p.protect, tpl, ELEMENTSOF(tpl), &tpl_len), 0);
	assert_int_equal(isolate_seccomp_prepare(&p, &o, err, sizeof(err)), 0);
	assert_non_null(p.seccomp_prog);
	assert_int_equal(p.seccomp_len, tpl_len);
	assert_memory_equal(p.seccomp_prog, tpl, tpl_len * sizeof(tpl[0]));
	assert_int_equal(run_filtered(&o, &p), 0);

	/* Built in the child (no prepared program): the same verdicts. */
	p.seccomp_prog = NULL;
	p.seccomp_len = 0;
	assert_int_equal(run_filtered(&o, &p), 0);

	/* No process group: no template, libseccomp builds it; the same verdicts. */
	p.protect.pgid = 0;
	assert_int_equal(isolate_seccomp_prepare(&p, &o, err, sizeof(err)), 0);
	assert_non_null(p.seccomp_prog);
	assert_int_equal(run_filtered(&o, &p), 0);
	p.seccomp_prog = NULL;
	p.seccomp_len = 0;
	assert_int_equal(run_filtered(&o, &p), 0);

	/* Nothing to build without seccomp in the plan. */
	p.seccomp = false;
	assert_int_equal(isolate_seccomp_prepare(&p, &o, err, sizeof(err)), 0);
	assert_null(p.seccomp_prog);
}

static void
test_plan_net(void **state)
{
	struct isolate_opts o = { .net = POLICY_NET_NONE };
	struct isolate_plan p;
	char err[256] = "";

	(void) state;
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.net_enforcement, "seccomp+landlock (ABI 7)");
	assert_string_equal(p.fs_enforcement, "none");
	assert_true(p.seccomp && p.landlock_net && p.landlock_scope);
	assert_false(p.landlock_fs);

	assert_int_equal(isolate_plan_on(&o, 4, true, &p, err, sizeof(err)), 0);
	assert_true(p.landlock_net);
	assert_false(p.landlock_scope);
	assert_int_equal(isolate_plan_on(&o, 3, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.net_enforcement, "seccomp");
	assert_false(p.landlock_net);
	/* The VM: no Landlock at all, seccomp alone. */
	assert_int_equal(isolate_plan_on(&o, 0, true, &p, err, sizeof(err)), 0);
	assert_string_equal(p.net_enforcement, "seccomp");

	/* No seccomp: refused, or with --fallback a weaker, named substitute. */
	assert_int_equal(isolate_plan_on(&o, 7, false, &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "sandcap: --net none:"));
	o.fallback = true;
	assert_int_equal(isolate_plan_on(&o, 7, false, &p, err, sizeof(err)), 0);
	assert_non_null(strstr(p.net_enforcement, "TCP only"));
	assert_int_equal(isolate_plan_on(&o, 0, false, &p, err, sizeof(err)), 0);
	assert_string_equal(p.net_enforcement, "none (no seccomp; --fallback)");
}

static void
test_plan_paths(void **state)
{
	struct isolate_opts o = { .fs = POLICY_FS_STRICT, .rw = { "/nonexistent/sandcap-test" },
				  .n_rw = 1 };
	struct isolate_plan p;
	char err[256] = "";

	(void) state;
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "sandcap: --rw /nonexistent/sandcap-test:"));
	o.rw[0] = "/";
	o.ro[0] = "/nonexistent/ro";
	o.n_ro = 1;
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "--ro /nonexistent/ro"));
	o.ro[0] = "/usr";
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), 0);
	/* A grant without a policy is a mistake worth stopping. */
	o.fs = POLICY_FS_NONE;
	assert_int_equal(isolate_plan_on(&o, 7, true, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a filesystem policy"));
}

static void
test_check_required(void **state)
{
	struct policy_resolved r = { .allowed = true, .net_required = POLICY_NET_NONE,
				     .fs_required = POLICY_FS_RO, .net_required_src = "[group:ci]",
				     .fs_required_src = "[limits]" };
	struct isolate_opts o = { .net = POLICY_NET_HOST, .fs = POLICY_FS_STRICT };
	char err[512] = "";

	(void) state;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "sandcap: --net host --fs strict: the policy requires --net "
			       "none or stricter (set by [group:ci]) for you"));
	o.net = POLICY_NET_NONE;
	o.fs = POLICY_FS_NONE;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "the policy requires --fs ro or stricter (set by [limits])"));
	/* Both missed: both named at once, each with its section. */
	o.net = POLICY_NET_HOST;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "requires --net none or stricter (set by [group:ci]) and --fs "
			       "ro or stricter (set by [limits]) for you"));
	o.net = POLICY_NET_NONE;
	o.fs = POLICY_FS_RO;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), 0);
	o.fs = POLICY_FS_STRICT;        /* more than required is fine */
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), 0);
	r.fs_required = POLICY_FS_STRICT;
	o.fs = POLICY_FS_RO;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "requires --fs strict"));

	/* --fallback may not downgrade a required policy on a kernel that lacks it. */
	o.fs = POLICY_FS_STRICT;
	o.fallback = true;
	assert_int_equal(isolate_check_required_on(&o, &r, 7, true, err, sizeof(err)), 0);
	assert_int_equal(isolate_check_required_on(&o, &r, 0, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "sandcap: --fallback:"));
	r.fs_required = POLICY_FS_NONE;
	assert_int_equal(isolate_check_required_on(&o, &r, 0, true, err, sizeof(err)), 0);
	assert_int_equal(isolate_check_required_on(&o, &r, 0, false, err, sizeof(err)), -EPERM);
	r.net_required = POLICY_NET_HOST;
	assert_int_equal(isolate_check_required_on(&o, &r, 0, false, err, sizeof(err)), 0);

	/* Nothing required: anything goes. */
	struct policy_resolved none = { .allowed = true };
	struct isolate_opts weakest = { .fallback = true };
	assert_int_equal(isolate_check_required_on(&weakest, &none, 0, false, err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fs),
		cmocka_unit_test(test_parse_net),
		cmocka_unit_test(test_fs_mask_per_abi),
		cmocka_unit_test(test_rules_none),
		cmocka_unit_test(test_rules_ro),
		cmocka_unit_test(test_rules_strict),
		cmocka_unit_test(test_rules_masked_to_abi),
		cmocka_unit_test(test_rules_overflow),
		cmocka_unit_test(test_plan_fs),
		cmocka_unit_test(test_plan_net),
		cmocka_unit_test(test_plan_paths),
		cmocka_unit_test(test_check_required),
		cmocka_unit_test(test_seccomp_prepared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
