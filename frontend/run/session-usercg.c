/* SPDX-License-Identifier: MIT */
/* Sessions in user-cgroup mode (session-usercg.h): the session's scope, its limits and its
 * calls' leaves. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup-util.h"
#include "cgroup/cgstats.h"
#include "cgroup/usercg-unit.h"
#include "cgroup/usercg.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"
#include "report/json.h"
#include "policy.h"
#include "run/run-int.h"
#include "run/session-io.h"
#include "run/session-level.h"
#include "run/session-usercg.h"
#include "run/session.h"
#include "run/usercg-run.h"

#define UCG_FILE      "ucg"
#define LEAF_EMPTY_MS 5000 /* a killed call's leaf emptying */

int
session_ucg_format(const struct session_ucg *u, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "scope=%s\nmemory=%" PRIu64 "\npids=%" PRIu64 "\ncpu=%" PRIu64 "\n",
			 u->scope, u->memory, u->pids, u->cpu_percent);

	return n < 0 || (size_t) n >= len ? -ENOBUFS : n;
}

/* Is path CG_MOUNT/.../sandcap-sess-<id>.scope, with no "." or ".." component? */
static bool
scope_path_ok(const char *path, const char *id)
{
	char tail[64];
	size_t lp = strlen(path), lt;

	(void) snprintf(tail, sizeof(tail), "/sandcap-sess-%s.scope", id);
	lt = strlen(tail);
	if (!strneq(path, CG_MOUNT "/", strlen(CG_MOUNT) + 1) || lp <= lt ||
	    !streq(path + lp - lt, tail))
		return false;
	return strstr(path, "/./") == NULL && strstr(path, "/../") == NULL &&
	       strstr(path, "//") == NULL;
}

int
session_ucg_parse(const char *text, const char *id, struct session_ucg *ret)
{
	struct session_ucg u = {};
	unsigned seen = 0;

	for (const char *s = text; *s != '\0';) {
		const char *e = strchrnul(s, '\n'), *eq = memchr(s, '=', (size_t) (e - s));
		char val[PATH_MAX];
		size_t kl, vl;
		uint64_t *num = NULL;

		if (eq == NULL)
			return -EINVAL;
		kl = (size_t) (eq - s);
		vl = (size_t) (e - eq - 1);
		if (vl >= sizeof(val))
			return -EINVAL;
		memcpy(val, eq + 1, vl);
		val[vl] = '\0';
		if (kl == 5 && strneq(s, "scope", 5)) {
			memcpy(u.scope, val, vl + 1);
			seen |= 1;
		} else if (kl == 6 && strneq(s, "memory", 6)) {
			num = &u.memory;
		} else if (kl == 4 && strneq(s, "pids", 4)) {
			num = &u.pids;
		} else if (kl == 3 && strneq(s, "cpu", 3)) {
			num = &u.cpu_percent;
		} else {
			return -EINVAL;
		}
		if (num != NULL && (vl == 0 || parse_u64_range(val, 0, UINT64_MAX, num) < 0))
			return -EINVAL;
		s = *e != '\0' ? e + 1 : e;
	}
	if (seen != 1 || !scope_path_ok(u.scope, id))
		return -EINVAL;
	*ret = u;
	return 0;
}

bool
session_is_usercg(const struct session_state *s)
{
	return streq(s->mode, SESSION_UCG_MODE);
}

int
session_usercg_check(const struct session_opts *o, char *err, size_t errlen)
{
	const uint64_t v[] = { o->memory, o->cpu_percent, o->pids };
	const enum policy_limit l[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS };
	struct policy *p = NULL;
	struct policy_resolved pol;
	int r;

	if (o->disk > 0) {
		snprintf(err, errlen,
			 "--disk: a size-limited workspace needs the sandcap helper (a tmpfs), "
			 "and this session would run in user-cgroup mode (your own systemd); drop "
			 "--disk, or ask the admin to install the helper");
		return -ENOTSUP;
	}
	r = load_policy(&p, err, errlen);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = resolve_policy(p, &pol);
	if (r < 0) {
		snprintf(err, errlen, "cannot resolve the policy %s for you: %s", SC_POLICY_PATH,
			 strerror(-r));
		return r;
	}
	if (!pol.allowed)
		return 1; /* as sandcap run: no cgroup limits for this user */
	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		r = run_policy_check(&pol, l[i], v[i], err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

int
session_usercg_start(const struct session_opts *o, int dfd, const struct session_state *s,
		     pid_t keeper, char *err, size_t errlen)
{
	struct sc_request lim = { .memory = o->memory,
				  .pids = o->pids,
				  .cpu_percent = o->cpu_percent };
	struct session_ucg f = { .memory = o->memory,
				 .pids = o->pids,
				 .cpu_percent = o->cpu_percent };
	struct usercg *u = malloc(sizeof(*u));
	char text[PATH_MAX + 128];
	int r, n;

	if (u == NULL)
		return -ENOMEM;
	usercg_init(u);
	r = usercg_open_session(u, s->id, keeper, &lim, s->ttl_ms + SESSION_UCG_BACKSTOP_MS, err,
				errlen);
	if (r == 0) {
		(void) snprintf(f.scope, sizeof(f.scope), "%s", u->path);
		n = session_ucg_format(&f, text, sizeof(text));
		r = n < 0 ? n : session_write_file(dfd, UCG_FILE, text, (size_t) n);
		if (r < 0)
			snprintf(err, errlen, "cannot write the session's %s file: %s", UCG_FILE,
				 strerror(-r));
	}
	usercg_close(u);
	free(u);
	return r;
}

static int
read_ucg(int dfd, const struct session_state *s, struct session_ucg *ret)
{
	char buf[PATH_MAX + 256];
	size_t len;
	int r = read_full_at(dfd, UCG_FILE, buf, sizeof(buf), &len);

	return r < 0 ? r : session_ucg_parse(buf, s->id, ret);
}

/* The scope's directory: a cgroup v2 directory of ours (the user manager's). */
static int
open_scope(const struct session_ucg *u)
{
	struct statfs sfs;
	struct stat st;
	int fd = open(u->scope, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC ||
	    st.st_uid != getuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int
refuse_over(const char *opt, const char *id, const char *asked, const char *has)
{
	fprintf(stderr,
		"sandcap: %s %s: above session %s's %s of %s, which binds every call; ask at "
		"most %s (or none: the session's applies)\n",
		opt, asked, id, opt + 2, has, has);
	return -1;
}

int
session_usercg_check_call(int dfd, const struct session_state *s, uint64_t memory, uint64_t pids,
			  uint64_t cpu_percent)
{
	struct session_ucg u;
	char a[32], b[32];

	if (read_ucg(dfd, s, &u) < 0) {
		fprintf(stderr,
			"sandcap: --session %s: its %s file is unreadable (a call may have "
			"changed it, or the session's scope is gone); end it with sandcap "
			"session end %s\n",
			s->id, UCG_FILE, s->id);
		return -1;
	}
	if (memory && u.memory && memory > u.memory) {
		format_size(memory, a, sizeof(a));
		format_size(u.memory, b, sizeof(b));
		return refuse_over("--memory", s->id, a, b);
	}
	if (pids && u.pids && pids > u.pids) {
		snprintf(a, sizeof(a), "%" PRIu64, pids);
		snprintf(b, sizeof(b), "%" PRIu64, u.pids);
		return refuse_over("--pids", s->id, a, b);
	}
	if (cpu_percent && u.cpu_percent && cpu_percent > u.cpu_percent) {
		snprintf(a, sizeof(a), "%" PRIu64 "%%", cpu_percent);
		snprintf(b, sizeof(b), "%" PRIu64 "%%", u.cpu_percent);
		return refuse_over("--cpu", s->id, a, b);
	}
	return 0;
}

static int
scope_gone(const struct session_state *s, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "its scope sandcap-sess-%s.scope is gone (the TTL passed, or the keeper was "
		 "killed and the scope emptied); end it with sandcap session end %s",
		 s->id, s->id);
	return -ENOENT;
}

int
session_usercg_cpu_used(int dfd, const struct session_state *s, uint64_t *ret_ms, char *err,
			size_t errlen)
{
	_cleanup_close_ int fd = -EBADF;
	struct session_ucg u;
	struct cg_usage c;

	if (read_ucg(dfd, s, &u) < 0 || (fd = open_scope(&u)) < 0)
		return scope_gone(s, err, errlen);
	if (cgstats_read(fd, -EBADF, &c) < 0 || !c.has_cpu_stat) {
		snprintf(err, errlen, "cannot read the cpu.stat of %s", u.scope);
		return -EIO;
	}
	*ret_ms = c.cpu_usage_usec / 1000;
	return 0;
}

/* Kill what runs in scope/name, wait (bounded) for it to empty, remove it. */
static int
remove_leaf(int scope, const char *name)
{
	_cleanup_close_ int leaf =
		openat(scope, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int kill = -EBADF, events = -EBADF;

	if (leaf < 0)
		return -errno;
	kill = openat(leaf, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	events = openat(leaf, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (kill >= 0)
		(void) cg_kill_fd(kill);
	if (events >= 0)
		(void) cg_wait_empty(events, LEAF_EMPTY_MS);
	return unlinkat(scope, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/* Every "call-*" below the scope: a call's sandcap removes its own leaf, so one left is a
 * killed call's, whose processes may still run. */
static void
sweep(int scope)
{
	int fd = fcntl(scope, F_DUPFD_CLOEXEC, 3);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_type == DT_DIR && strneq(de->d_name, "call-", 5))
			(void) remove_leaf(scope, de->d_name);
	closedir(d);
}

/* Given to run_usercg_session() for the call that runs. */
static char call_scope[PATH_MAX], call_leaf[32];

int
session_usercg_call_begin(int dfd, const struct session_state *s, unsigned n, char *err,
			  size_t errlen)
{
	_cleanup_close_ int fd = -EBADF;
	struct session_ucg u;

	if (read_ucg(dfd, s, &u) < 0 || (fd = open_scope(&u)) < 0)
		return scope_gone(s, err, errlen);
	/* The record's path, only where the user manager runs the session's scope. */
	if (session_scope_check(s->id, u.scope, err, errlen) < 0)
		return -EPERM;
	sweep(fd);
	(void) snprintf(call_scope, sizeof(call_scope), "%s", u.scope);
	(void) snprintf(call_leaf, sizeof(call_leaf), "call-%u", n);
	run_usercg_session(call_scope, call_leaf);
	return 0;
}

void
session_usercg_call_end(void)
{
	run_usercg_session(NULL, NULL);
}

void
session_usercg_teardown(int dfd, const struct session_state *s)
{
	_cleanup_close_ int fd = -EBADF;
	struct session_ucg u = {};
	char unit[64], why[256];

	/* The user manager's path, not the record's: a call may have pointed the record at
	 * another session's scope, whose running call a sweep would kill. */
	(void) dfd;
	(void) snprintf(unit, sizeof(unit), "sandcap-sess-%s.scope", s->id);
	if (usercg_unit_cgroup(unit, u.scope, sizeof(u.scope), why, sizeof(why)) < 0 ||
	    (fd = open_scope(&u)) < 0)
		return; /* stopped, or the manager cannot say where: RuntimeMaxSec stops it */
	sweep(fd);
}

void
session_usercg_report(int dfd, const struct session_state *s, FILE *out, bool json)
{
	static const char how[] = "your systemd user manager: the scope's MemoryMax, TasksMax "
				  "and CPUQuota; RuntimeMaxSec at the TTL + 10 s";
	struct session_ucg u;
	uint64_t used = 0;
	char err[256], mem[32];
	bool has_used;

	if (read_ucg(dfd, s, &u) < 0) {
		if (json)
			fputs(", \"user_cgroup\": null", out);
		return;
	}
	has_used = session_usercg_cpu_used(dfd, s, &used, err, sizeof(err)) == 0;
	if (!json) {
		format_size(u.memory, mem, sizeof(mem));
		fprintf(out,
			"scope: %s (memory %s, pids %" PRIu64 ", cpu %" PRIu64 "%%; 0: none)\n",
			strrchr(u.scope, '/') + 1, u.memory ? mem : "0", u.pids, u.cpu_percent);
		if (has_used)
			fprintf(out, "CPU time used (its cpu.stat): %" PRIu64 " ms\n", used);
		return;
	}
	fputs(", \"user_cgroup\": {\"scope\": ", out);
	json_write_string(out, u.scope, strlen(u.scope));
	fprintf(out,
		", \"memory\": %" PRIu64 ", \"pids\": %" PRIu64 ", \"cpu_percent\": %" PRIu64
		", \"cpu_used_ms\": ",
		u.memory, u.pids, u.cpu_percent);
	if (has_used)
		fprintf(out, "%" PRIu64, used);
	else
		fputs("null", out);
	fprintf(out, ", \"enforcement\": \"%s\"}", how);
}
