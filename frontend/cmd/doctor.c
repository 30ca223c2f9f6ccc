/* SPDX-License-Identifier: MIT */
/* sandcap doctor: tell a user or admin, in order, what this host is missing for sandcap's cgroup
 * mode and how to fix each thing.  Reads only; never needs privilege (as root it can look
 * inside the root-only delegated parent). */
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <limits.h>
#include <linux/magic.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/doctor-access.h"
#include "fd-util.h"
#include "cmd/filecaps.h"
#include "macro.h"
#include "parse-util.h"
#include "policy.h"
#include "cgroup/sdbus.h"
#include "cgroup/usercg.h"

#define CGROUP_MNT        "/sys/fs/cgroup"
#define DOCTOR_GROUPS_MAX 256

struct doctor {
	unsigned fails, warns;
	bool quiet_ok;
};

/* The helper's file capabilities, as packaging sets them (SECURITY.md). */
#define SC_HELPER_CAPS "cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p"

static void
report(struct doctor *d, const char *status, const char *what, const char *fix)
{
	if (streq(status, "FAIL"))
		d->fails++;
	else if (streq(status, "warn"))
		d->warns++;
	printf("%-5s %s\n", status, what);
	if (fix != NULL && fix[0] != '\0')
		printf("      fix: %s\n", fix);
}

/* A small file under dirfd, without its trailing newline. */
static int
read_small(int dirfd, const char *path, char *buf, size_t bufsz)
{
	size_t len = 0;
	int r = read_full_at(dirfd, path, buf, bufsz, &len);

	if (r == 0 && len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return r;
}

static void
check_cgroup2(struct doctor *d)
{
	if (!cgroup2_mounted()) {
		report(d, "FAIL",
		       "cgroup v2 is not mounted at " CGROUP_MNT
		       " (this host uses cgroup v1 or a hybrid layout)",
		       "boot with systemd.unified_cgroup_hierarchy=1 (the default since systemd 247 "
		       "and Debian 11); rlimit mode still works: sandcap run --no-cgroup");
		return;
	}
	report(d, "ok", "cgroup v2 mounted at " CGROUP_MNT, NULL);
}

static void
check_parent(struct doctor *d, const char *root, const char *nopolicy)
{
	char what[512], buf[512];
	_cleanup_close_ int fd = -EBADF;
	struct statfs sfs;
	struct stat st;
	int r;

	if (root == NULL) {
		snprintf(what, sizeof(what), "delegated parent: unknown (%s: it names cgroup_root)",
			 nopolicy);
		report(d, "FAIL", what, "fix the policy first (see below)");
		return;
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == EACCES)
		fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(what, sizeof(what), "delegated parent %s: %s", root, strerror(errno));
		report(d, "FAIL", what,
		       "as root: start the unit (systemctl enable --now sandcap.service) or run "
		       "sandcap-setup --cgroup <dir> at boot, and set cgroup_root to what it prints");
		return;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC || fstat(fd, &st) < 0) {
		snprintf(what, sizeof(what), "delegated parent %s is not a cgroup v2 directory",
			 root);
		report(d, "FAIL", what,
		       "point cgroup_root in the policy at a directory under " CGROUP_MNT
		       " created by sandcap-setup");
		return;
	}
	if (st.st_uid != 0 || (st.st_mode & 07777) != 0700) {
		snprintf(what, sizeof(what),
			 "delegated parent %s is owned by uid %u with mode %04o; "
			 "it must be root-owned 0700 (users could otherwise reach the sandboxes' "
			 "limit files)",
			 root, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
		report(d, "FAIL", what,
		       "as root: chown root:root and chmod 0700 it (sandcap-setup does)");
		return;
	}
	r = read_small(fd, "cgroup.subtree_control", buf, sizeof(buf));
	if (r == -EACCES || r == -EBADF) {
		snprintf(
			what, sizeof(what),
			"delegated parent %s exists, root-owned 0700 "
			"(controllers visible to root only: run sandcap doctor as root to check them)",
			root);
		report(d, "ok", what, NULL);
		return;
	}
	if (r < 0) {
		snprintf(what, sizeof(what),
			 "delegated parent %s: cannot read cgroup.subtree_control: %s", root,
			 strerror(-r));
		report(d, "FAIL", what, NULL);
		return;
	}
	const char *const need[] = { "cpu", "memory", "pids" };
	char missing[64] = "";
	for (size_t i = 0; i < ELEMENTSOF(need); i++)
		if (!word_in_list(buf, need[i])) {
			strlcat(missing, " ", sizeof(missing));
			strlcat(missing, need[i], sizeof(missing));
		}
	if (missing[0] != '\0') {
		snprintf(what, sizeof(what), "delegated parent %s lacks controllers:%s (has '%s')",
			 root, missing, buf);
		report(d, "FAIL", what,
		       "as root: run sandcap-setup (enables +cpu +memory +pids +io "
		       "top-down), or for systemd set Delegate=cpu memory pids io on the unit");
		return;
	}
	snprintf(what, sizeof(what), "delegated parent %s: root-owned 0700, controllers: %s", root,
		 buf);
	report(d, "ok", what, NULL);
}

/* The admin restricted the helper to a group (dpkg-statoverride root:GROUP 0750) and this
 * session cannot run it: not a member, or a member since after this login. */
static void
helper_not_executable(struct doctor *d, const char *path, const struct stat *st)
{
	char what[PATH_MAX + 256], fix[512];
	struct group *gr = getgrgid(st->st_gid);
	struct passwd *pw = getpwuid(getuid());
	const char *g = gr != NULL ? gr->gr_name : "?";
	bool member = false;

	if (pw != NULL && gr != NULL) {
		gid_t gids[DOCTOR_GROUPS_MAX];
		int n = DOCTOR_GROUPS_MAX;

		if (getgrouplist(pw->pw_name, pw->pw_gid, gids, &n) >= 0)
			for (int i = 0; i < n; i++)
				member = member || gids[i] == st->st_gid;
	}
	snprintf(what, sizeof(what), "helper %s (mode %04o, group %s): you may not run it%s", path,
		 (unsigned) (st->st_mode & 07777), g, member ? ": you are in group " : "");
	if (member) {
		strlcat(what, g, sizeof(what));
		strlcat(what, " since after this login session started", sizeof(what));
		snprintf(fix, sizeof(fix), "log out and back in (or run 'newgrp %s' in this shell)",
			 g);
	} else {
		snprintf(fix, sizeof(fix), "as root: adduser %s %s; then log out and back in",
			 pw != NULL ? pw->pw_name : "USER", g);
	}
	report(d, "FAIL", what, fix);
}

static void
check_helper(struct doctor *d)
{
	const char *path = getenv("SANDCAP_HELPER");
	static const struct {
		unsigned cap;
		const char *name;
	} caps[] = {
		{ CAP_DAC_OVERRIDE, "cap_dac_override" },
		{ CAP_CHOWN, "cap_chown" },
		{ CAP_SYS_ADMIN, "cap_sys_admin" },
	};
	char what[PATH_MAX + 256], fix[PATH_MAX + 128], missing[96] = "";
	_cleanup_close_ int fd = -EBADF;
	struct statvfs svfs;
	struct stat st;
	uint64_t permitted;

	if (path == NULL || path[0] == '\0')
		path = SC_HELPER_PATH;
	if (access(path, X_OK) < 0 && errno == EACCES && stat(path, &st) == 0) {
		helper_not_executable(d, path, &st);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(what, sizeof(what), "helper %s: %s", path, strerror(errno));
		report(d, "FAIL", what,
		       "install sandcap (make install && make install-caps, or the "
		       "sandcap package); SANDCAP_HELPER=PATH points sandcap at another copy");
		return;
	}
	if (fstatvfs(fd, &svfs) == 0 && (svfs.f_flag & ST_NOSUID)) {
		snprintf(what, sizeof(what),
			 "helper %s is on a nosuid mount: the kernel ignores its "
			 "file capabilities",
			 path);
		report(d, "FAIL", what,
		       "install the helper on a filesystem mounted without nosuid");
		return;
	}
	if (filecaps_permitted_fd(fd, &permitted) < 0) {
		snprintf(what, sizeof(what), "helper %s has no file capabilities", path);
		snprintf(fix, sizeof(fix), "as root: setcap %s %s (or make install-caps)",
			 SC_HELPER_CAPS, path);
		report(d, "FAIL", what, fix);
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(caps); i++)
		if (!(permitted & (UINT64_C(1) << caps[i].cap))) {
			strlcat(missing, " ", sizeof(missing));
			strlcat(missing, caps[i].name, sizeof(missing));
		}
	if (missing[0] != '\0') {
		snprintf(what, sizeof(what), "helper %s lacks permitted capabilities:%s", path,
			 missing);
		snprintf(fix, sizeof(fix), "as root: setcap %s %s", SC_HELPER_CAPS, path);
		report(d, "FAIL", what, fix);
		return;
	}
	snprintf(what, sizeof(what), "helper %s has cap_dac_override,cap_chown,cap_sys_admin=p",
		 path);
	report(d, "ok", what, NULL);
	/* Optional: without them the helper serves --net host only. */
	if (!(permitted & (UINT64_C(1) << CAP_BPF)) ||
	    !(permitted & (UINT64_C(1) << CAP_NET_ADMIN))) {
		snprintf(
			what, sizeof(what),
			"helper %s lacks cap_bpf and cap_net_admin: --net none, "
			"loopback and proxy cannot be enforced in cgroup mode (they load and attach "
			"the cgroup BPF programs)",
			path);
		snprintf(fix, sizeof(fix), "as root: setcap %s %s", SC_HELPER_CAPS, path);
		report(d, "warn", what, fix);
	} else {
		report(d, "ok", "helper has cap_bpf and cap_net_admin (--net in cgroup mode)",
		       NULL);
	}
}

static void
check_environment(struct doctor *d)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	bool nnp = false, have_bnd = false;
	unsigned long long bnd = 0;

	if (f == NULL) {
		report(d, "warn", "cannot read /proc/self/status", "mount /proc");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strneq(line, "NoNewPrivs:", 11))
			nnp = strtoul(line + 11, NULL, 10) != 0;
		else if (strneq(line, "CapBnd:", 7)) {
			bnd = strtoull(line + 7, NULL, 16);
			have_bnd = true;
		}
	}
	fclose(f);
	if (nnp)
		report(d, "FAIL",
		       "no_new_privs is set in this environment: the kernel will not grant "
		       "the helper its file capabilities",
		       "run sandcap outside NoNewPrivileges=yes units, bubblewrap, flatpak or docker "
		       "--security-opt no-new-privileges (or use sandcap run --no-cgroup)");
	else
		report(d, "ok", "no_new_privs is not set", NULL);
	if (!have_bnd)
		report(d, "warn",
		       "the capability bounding set is unknown (no CapBnd in "
		       "/proc/self/status)",
		       "mount a complete /proc");
	else if ((bnd & (1ULL << CAP_DAC_OVERRIDE)) == 0 || (bnd & (1ULL << CAP_CHOWN)) == 0 ||
		 (bnd & (1ULL << CAP_SYS_ADMIN)) == 0)
		report(d, "FAIL",
		       "the capability bounding set lacks cap_dac_override, cap_chown or "
		       "cap_sys_admin (a container?): file capabilities cannot be granted",
		       "run sandcap on the host, not in a restricted container");
	else
		report(d, "ok",
		       "the capability bounding set has the three capabilities the helper "
		       "needs",
		       NULL);
}

static void
check_workspace_root(struct doctor *d, const char *wsroot, const char *nopolicy)
{
	char what[PATH_MAX + 128];
	struct stat st;

	/* Named in the list of checks: say why it was not made (the policy's line says why). */
	if (wsroot == NULL) {
		snprintf(what, sizeof(what),
			 "workspace root: unknown (%s: it names "
			 "workspace_root)",
			 nopolicy);
		report(d, "info", what, "fix the policy first (see above)");
		return;
	}
	if (stat(wsroot, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(what, sizeof(what), "workspace root %s does not exist", wsroot);
		report(d, "FAIL", what,
		       "as root: systemd-tmpfiles --create sandcap.conf, or sandcap-setup");
		return;
	}
	if (st.st_uid != 0 || (st.st_mode & 022) != 0) {
		snprintf(what, sizeof(what),
			 "workspace root %s must be root-owned and not writable "
			 "by group or others (uid %u, mode %04o)",
			 wsroot, (unsigned) st.st_uid, (unsigned) (st.st_mode & 07777));
		report(d, "FAIL", what, "as root: chown root:root and chmod 0755 it");
		return;
	}
	snprintf(what, sizeof(what), "workspace root %s", wsroot);
	report(d, "ok", what, NULL);
}

/* user-cgroup mode: what sandcap run uses when the checks above fail.  Its library first:
 * sandcap loads libsystemd only for this mode, so nothing else would tell it is missing. */
static bool
check_user_cgroup(struct doctor *d)
{
	char info[512], what[600];
	int r;

	if (sdbus_load(info, sizeof(info)) == NULL) {
		snprintf(what, sizeof(what), "user-cgroup mode %s", info);
		report(d, "info", what, "not needed with the helper; otherwise " SDBUS_FIX);
		return false;
	}
	report(d, "ok", "libsystemd.so.0 loads (user-cgroup mode can ask your systemd for a scope)",
	       NULL);
	r = usercg_probe(info, sizeof(info));

	snprintf(what, sizeof(what), "user-cgroup mode: %s", info);
	report(d, r == 0 ? "ok" : "info", what,
	       r == 0 ? NULL
		      : "not needed with the helper; otherwise log in through PAM/logind (ssh, a desktop) "
			"or ask for 'loginctl enable-linger'");
	return r == 0;
}

static void
check_landlock(struct doctor *d)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* VERSION */);
	char what[128];

	if (abi < 0) {
		report(d, "warn",
		       "Landlock is not available: sandcap run --fs needs --fallback here",
		       "Linux 5.13+ with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list");
		return;
	}
	snprintf(what, sizeof(what), "Landlock ABI %ld (sandcap run --fs is enforced)", abi);
	report(d, "ok", what, NULL);
}

/* A lookup of the caller's groups that failed: the helper would refuse, and says why. */
static void
lookup_failed(struct doctor *d, const struct policy_caller *c, int r)
{
	char what[256];

	if (r == -E2BIG)
		snprintf(what, sizeof(what),
			 "you are in more than %d groups: the helper refuses to "
			 "judge you by some of them",
			 POLICY_GROUPS_MAX);
	else if (r != -ENOMEM)
		snprintf(what, sizeof(what),
			 "the lookup of your group %u failed (%s): the helper "
			 "refuses rather than miss a [group:] section",
			 (unsigned) c->failed_gid, strerror(-r));
	else
		snprintf(what, sizeof(what), "cannot look up your groups: %s", strerror(-r));
	report(d, "FAIL", what,
	       r == -E2BIG
		       ? "ask the admin to remove you from some groups"
		       : "check the name services (nsswitch.conf, nscd, sssd, LDAP) and try again");
}

/* Does the policy allow the caller (by the group database, as the helper decides), and
 * does this login session already carry the group that does? */
static void
check_access(struct doctor *d, const struct policy *p)
{
	_cleanup_(policy_caller_done) struct policy_caller db = {}, sess = {};
	gid_t sessg[DOCTOR_GROUPS_MAX + 1];
	char what[POLICY_ERR_MAX + 256], fix[512];
	int r, nsess;

	r = policy_caller_lookup(getuid(), true, POLICY_GROUPS_MAX, &db);
	if (r == -ENOENT) {
		report(d, "FAIL", "your uid has no user name: the policy cannot allow it",
		       "add the account to the password database (or NSS)");
		return;
	}
	if (r < 0) {
		lookup_failed(d, &db, r);
		return;
	}
	sessg[0] = getgid();
	nsess = getgroups(DOCTOR_GROUPS_MAX, sessg + 1);
	r = policy_caller_add_gids(&sess, sessg, nsess < 0 ? 1 : (size_t) nsess + 1,
				   DOCTOR_GROUPS_MAX + 1);
	if (r < 0) {
		lookup_failed(d, &sess, r);
		return;
	}
	switch (doctor_access_check(p, db.user, (const char *const *) db.groups, db.ngroups,
				    (const char *const *) sess.groups, sess.ngroups, what,
				    sizeof(what), fix, sizeof(fix))) {
	case DOCTOR_ACCESS_OK:
		report(d, "ok", what, NULL);
		break;
	case DOCTOR_ACCESS_DENIED:
	case DOCTOR_ACCESS_RELOGIN:
		report(d, "FAIL", what, fix);
		break;
	}
}

int
cmd_doctor(int argc, char **argv)
{
	char err[POLICY_ERR_MAX], what[POLICY_ERR_MAX + 64];
	enum policy_load_step step;
	struct policy *p = NULL;
	struct doctor d = { 0 };
	const char *nopolicy;
	bool user_cgroup;

	if (argc > 1 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		printf("Usage: sandcap doctor\n\nCheck, in order, what sandcap's cgroup mode needs on this "
		       "host: cgroup v2, the delegated parent and its controllers, the helper and its "
		       "capabilities, no_new_privs, the policy file and its trust checks, whether the "
		       "policy lets you (and this login session) run sandboxes, the "
		       "workspace root, Landlock; then whether user-cgroup mode could be used "
		       "(libsystemd.so.0, your systemd user manager).  Prints the fix for each "
		       "problem.\n"
		       "Exit status: 0 all good, 1 something is missing.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr,
			"sandcap: doctor: unexpected argument '%s' (see sandcap doctor --help)\n",
			argv[1]);
		return SC_EXIT_FAILURE;
	}

	/* The policy names the parent and the workspace root: read it first, report it in turn. */
	(void) policy_load(SC_POLICY_PATH, &p, &step, err, sizeof(err));
	/* Which of the three: none, one sandcap may not use, or one that does not parse. */
	nopolicy = step == POLICY_LOAD_MISSING     ? "no policy file"
		   : step == POLICY_LOAD_UNTRUSTED ? "the policy cannot be used"
						   : "the policy is invalid";

	check_cgroup2(&d);
	check_parent(&d, p != NULL ? policy_cgroup_root(p) : NULL, nopolicy);
	check_helper(&d);
	check_environment(&d);
	if (p == NULL) {
		snprintf(what, sizeof(what), "policy %s: %s%s", SC_POLICY_PATH,
			 step == POLICY_LOAD_INVALID ? "invalid: " : "", err);
		report(&d, "FAIL", what,
		       step == POLICY_LOAD_MISSING
			       ? "as root: install /etc/sandcap/sandbox.ini (see sandbox.ini.example, sandbox.ini(5))"
			       : "as root: fix the file; sandcap policy check " SC_POLICY_PATH
				 " lists every error");
	} else {
		snprintf(what, sizeof(what), "policy %s: trusted and valid", SC_POLICY_PATH);
		report(&d, "ok", what, NULL);
		check_access(&d, p);
	}
	check_workspace_root(&d, p != NULL ? policy_workspace_root(p) : NULL, nopolicy);
	check_landlock(&d);
	policy_free(p);
	user_cgroup = check_user_cgroup(&d);

	if (d.fails == 0)
		printf("sandcap doctor: cgroup mode should work here (%u warning%s)\n", d.warns,
		       d.warns == 1 ? "" : "s");
	else
		printf("sandcap doctor: %u problem%s; until fixed, sandcap run works in %s mode\n",
		       d.fails, d.fails == 1 ? "" : "s", user_cgroup ? "user-cgroup" : "rlimit");
	return d.fails == 0 ? 0 : 1;
}
