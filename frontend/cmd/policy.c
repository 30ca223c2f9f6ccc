/* SPDX-License-Identifier: MIT */
/* sandcap policy check [--no-trust] [--strict] [FILE]
 * sandcap policy show [--no-trust] [--user NAME] [--groups LIST] [FILE]
 * The admin's tools for /etc/sandcap/sandbox.ini; see sandbox.ini(5).  Unprivileged. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "log.h"
#include "macro.h"
#include "policy.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: sandcap policy check [--no-trust] [--strict] [FILE]\n"
		"       sandcap policy show [--no-trust] [--user NAME] [--groups G1,G2...]\n"
		"                           [FILE]\n\n"
		"  check   validate the policy: prints 'FILE: OK' or every error with its line,\n"
		"          and whether sandcap-helper would refuse the file (owner, mode, parents,\n"
		"          symlinks).  --no-trust skips that part (for a file not installed yet).\n"
		"          Warns, with the line and the fix, of user and group names the user\n"
		"          database does not know (naming the nearest one) and of values that\n"
		"          cannot do what they say; --strict makes those errors.\n"
		"  show    the effective ceilings and defaults of a user (default: you), and the\n"
		"          section each came from.  --groups replaces the user's groups (from\n"
		"          the system's user database) with the given list.\n\n"
		"FILE defaults to %s.  Exit status: 0 valid, 1 invalid or refused, 125 usage.\n"
		"See sandbox.ini(5).\n",
		SC_POLICY_PATH);
}

/* Read the file the ordinary way (following symlinks, any owner), capped. */
static int
read_plain(const char *path, char **ret_text, size_t *ret_len)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	text = malloc(POLICY_FILE_MAX + 2);
	if (text == NULL)
		return -ENOMEM;
	while (len <= POLICY_FILE_MAX) {
		ssize_t n = read(fd, text + len, POLICY_FILE_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t) n;
	}
	/* More than the cap: the parser reports it ("file is N bytes"). */
	text[len] = '\0';
	*ret_text = TAKE_PTR(text);
	*ret_len = len;
	return 0;
}

static void
print_error(const char *msg, void *userdata)
{
	(void) userdata;
	fprintf(stderr, "%s\n", msg);
}

/* Edit distance between a and b (Levenshtein, one row), capped at 99 for long names. */
static unsigned
edit_distance(const char *a, const char *b)
{
	unsigned row[65];
	size_t la = strlen(a), lb = strlen(b);

	if (la >= ELEMENTSOF(row) || lb >= ELEMENTSOF(row))
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned) j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned) i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

struct name_check {
	const char *file;
	bool strict;
	int n; /* names not found */
};

/* The existing user (or group) name nearest to name, into buf; false if none is close
 * enough to be the one meant (more than a third of the name changed). */
static bool
nearest_name(bool user, const char *name, char *buf, size_t bufsz)
{
	unsigned best = strlen(name) / 3 + 1;
	bool found = false;

	if (user) {
		struct passwd *pw;

		setpwent();
		while ((pw = getpwent()) != NULL) {
			unsigned d = edit_distance(name, pw->pw_name);

			if (d < best) {
				best = d;
				found = true;
				(void) strlcpy(buf, pw->pw_name, bufsz);
			}
		}
		endpwent();
	} else {
		struct group *gr;

		setgrent();
		while ((gr = getgrent()) != NULL) {
			unsigned d = edit_distance(name, gr->gr_name);

			if (d < best) {
				best = d;
				found = true;
				(void) strlcpy(buf, gr->gr_name, bufsz);
			}
		}
		endgrent();
	}
	return found;
}

/* A name the user or group database does not know: most often a typo, and a typo in a
 * deny leaves the user it meant allowed. */
static void
check_name(bool user, const char *name, unsigned line, const char *where, void *userdata)
{
	struct name_check *nc = userdata;
	const char *what = user ? "user" : "group";
	char near[64], hint[128];

	errno = 0;
	if (user ? getpwnam(name) != NULL : getgrnam(name) != NULL)
		return;
	if (errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF && errno != EPERM) {
		fprintf(stderr, "%s:%u: warning: %s: cannot look up %s '%s': %s\n", nc->file, line,
			where, what, name, strerror(errno));
		return;
	}
	nc->n++;
	if (nearest_name(user, name, near, sizeof(near)))
		snprintf(hint, sizeof(hint), "did you mean '%s'? ", near);
	else
		hint[0] = '\0';
	fprintf(stderr,
		"%s:%u: %s%s: no %s '%s' in the %s database: %sa misspelt name matches "
		"nobody (a deny in it denies no one); fix the name, or remove it%s\n",
		nc->file, line, nc->strict ? "" : "warning: ", where, what, name,
		user ? "user" : "group", hint, nc->strict ? "" : " (an error with --strict)");
}

static void
print_warning(const char *msg, void *userdata)
{
	bool strict = *(const bool *) userdata;
	const char *w = strstr(msg, ": warning: ");

	/* With --strict the same line, as an error. */
	if (strict && w != NULL)
		fprintf(stderr, "%.*s: %s\n", (int) (w - msg), msg, w + 11);
	else
		fprintf(stderr, "%s\n", msg);
}

/* What loads but is likely not what the admin meant: names nobody has, incoherent values.
 * Returns how many were found. */
static int
check_meaning(const char *text, size_t len, const char *file, bool strict)
{
	struct name_check nc = { .file = file, .strict = strict };
	struct policy *p = NULL;
	unsigned line;
	int n;

	if (policy_parse_string(text, len, file, &p, &line, NULL, 0) < 0)
		return 0; /* its errors are already said */
	policy_for_each_name(p, check_name, &nc);
	n = nc.n + policy_lint(p, file, print_warning, &strict);
	policy_free(p);
	return n;
}

static int
do_check(const char *file, bool trust, bool strict)
{
	_cleanup_free_ char *text = NULL, *ttext = NULL;
	char err[POLICY_ERR_MAX];
	size_t len = 0, tlen = 0;
	int r, nerr, nwarn = 0;

	r = read_plain(file, &text, &len);
	if (r < 0) {
		fprintf(stderr, "%s: cannot read: %s\n", file, strerror(-r));
		return 1;
	}
	nerr = policy_check_string(text, len, file, print_error, NULL);
	if (nerr < 0) {
		fprintf(stderr, "%s: cannot check: %s\n", file, strerror(-nerr));
		return 1;
	}
	if (nerr == 0)
		nwarn = check_meaning(text, len, file, strict);
	if (strict)
		nerr += nwarn;
	if (trust) {
		r = policy_read_trusted(file, &ttext, &tlen, err, sizeof(err));
		if (r < 0) {
			/* Say when that is all: a valid file that only fails the trust checks
			 * (the shipped example in a clone under /tmp) must not look broken. */
			fprintf(stderr, "%s: would be refused by the helper: %s%s\n", file, err,
				nerr == 0 ? " (its contents are valid: --no-trust checks only them)"
					  : "");
			nerr++;
		}
	}
	if (nerr > 0)
		return 1;
	if (nwarn > 0)
		printf("%s: OK, with %d warning%s\n", file, nwarn, nwarn == 1 ? "" : "s");
	else
		printf("%s: OK\n", file);
	return 0;
}

/* Split "a,b c" into names (pointers into s, which is modified). */
static size_t
split_list(char *s, const char **out, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(s, ", \t"); tok != NULL && n < max; tok = strtok(NULL, ", \t"))
		out[n++] = tok;
	return n;
}

/* A name given to policy show that no [user:]/[group:] section can have: a typo, or a
 * directory name such as alice@corp.example, which gets [defaults] and its groups' sections
 * all the same.  Said, not refused. */
static void
warn_name(const char *option, const char *what, const char *name)
{
	char esc[256];

	fprintf(stderr,
		"sandcap: policy show: warning: %s: '%s' can name no [%s:] section "
		"(letters, digits, '_', '.' and '-' after the first character, a final '$'; at "
		"most %d bytes); the defaults and group sections still apply\n",
		option, log_escape(name, esc, sizeof(esc)), what, POLICY_NAME_MAX);
}

/* A value as the admin wrote it where a section set it ("1h", "2G"), else formatted. */
static void
show_value(const struct policy *p, enum policy_limit l, const char *key, uint64_t v,
	   const char *src, char *buf, size_t bufsz)
{
	const char *t = v != 0 && v != UINT64_MAX ? policy_value_text(p, src, key) : NULL;

	if (t != NULL)
		(void) strlcpy(buf, t, bufsz);
	else
		policy_format_value(l, v, buf, bufsz);
}

#define SHOW_ROWS (_POLICY_LIMIT_MAX + 4)

struct show_row {
	const char *name;
	char ceiling[72];
	const char *ceiling_src;
	char dflt[72];
	const char *dflt_src; /* NULL: no default column */
};

/* The limits, sandboxes and totals as one table, each column as wide as its widest cell. */
static void
print_table(const struct show_row *rows, size_t n)
{
	int w[4] = { (int) strlen("LIMIT"), (int) strlen("CEILING"), (int) strlen("FROM"),
		     (int) strlen("DEFAULT") };

	for (size_t i = 0; i < n; i++) {
		w[0] = MAX(w[0], (int) strlen(rows[i].name));
		w[1] = MAX(w[1], (int) strlen(rows[i].ceiling));
		if (rows[i].dflt_src != NULL) {
			w[2] = MAX(w[2], (int) strlen(rows[i].ceiling_src));
			w[3] = MAX(w[3], (int) strlen(rows[i].dflt));
		}
	}
	printf("\n%-*s  %-*s  %-*s  %-*s  %s\n", w[0], "LIMIT", w[1], "CEILING", w[2], "FROM", w[3],
	       "DEFAULT", "FROM");
	for (size_t i = 0; i < n; i++)
		if (rows[i].dflt_src != NULL)
			printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], rows[i].name, w[1],
			       rows[i].ceiling, w[2], rows[i].ceiling_src, w[3], rows[i].dflt,
			       rows[i].dflt_src);
		else
			printf("%-*s  %-*s  %s\n", w[0], rows[i].name, w[1], rows[i].ceiling,
			       rows[i].ceiling_src);
}

static void
show_limits(const struct policy *p, const struct policy_resolved *res)
{
	static const enum policy_limit as[3] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS };
	struct show_row rows[SHOW_ROWS] = {};
	size_t n = 0;

	for (int l = 0; l < _POLICY_LIMIT_MAX; l++, n++) {
		const char *name = policy_limit_name(l);

		rows[n].name = name;
		show_value(p, l, name, res->ceiling[l], res->ceiling_src[l], rows[n].ceiling,
			   sizeof(rows[n].ceiling));
		rows[n].ceiling_src = res->ceiling_src[l];
		show_value(p, l, name, res->dflt[l], res->dflt_src[l], rows[n].dflt,
			   sizeof(rows[n].dflt));
		rows[n].dflt_src = res->dflt_src[l];
	}
	rows[n].name = "sandboxes";
	show_value(p, POLICY_PIDS, "sandboxes", res->sandboxes, res->sandboxes_src, rows[n].ceiling,
		   sizeof(rows[n].ceiling));
	rows[n++].ceiling_src = res->sandboxes_src;
	/* The per-user level: the sum of all of the user's sandboxes. */
	for (int t = 0; t < 3; t++, n++) {
		rows[n].name = policy_total_name(t);
		show_value(p, as[t], rows[n].name, res->total[t], res->total_src[t],
			   rows[n].ceiling, sizeof(rows[n].ceiling));
		rows[n].ceiling_src = res->total_src[t];
	}
	print_table(rows, n);
}

/* Who `policy show` resolves for: --user (else the caller) in --groups (else the user's
 * groups, looked up as the helper looks them up).  0, or SC_EXIT_FAILURE after saying why
 * not.  names holds POLICY_GROUPS_MAX. */
static int
show_who(const char *user, char *groups_arg, struct policy_caller *c, const char **names,
	 struct policy_subject *ret)
{
	bool given = user != NULL;
	int r = 0;

	if (user == NULL)
		r = policy_caller_lookup(getuid(), groups_arg == NULL, POLICY_GROUPS_MAX, c);
	else if (groups_arg == NULL)
		r = policy_caller_lookup_name(user, POLICY_GROUPS_MAX, c);
	if (r == -ENOENT && user == NULL)
		fprintf(stderr, "sandcap: policy show: uid %u has no user name; use --user NAME\n",
			(unsigned) getuid());
	else if (r == -ENOENT)
		fprintf(stderr,
			"sandcap: policy show: no user '%s' in the user database; give "
			"its groups with --groups G1,G2\n",
			user);
	if (user == NULL)
		user = c->user;
	if (r == -E2BIG)
		fprintf(stderr,
			"sandcap: policy show: cannot list the groups of '%s': more than "
			"%d (the helper refuses such a user)\n",
			user, POLICY_GROUPS_MAX);
	else if (r < 0 && r != -ENOENT && c->user != NULL && r != -ENOMEM)
		fprintf(stderr, "sandcap: policy show: cannot look up group %u of '%s': %s\n",
			(unsigned) c->failed_gid, user, strerror(-r));
	else if (r < 0 && r != -ENOENT)
		fprintf(stderr, "sandcap: policy show: %s\n", strerror(-r));
	if (r < 0)
		return SC_EXIT_FAILURE;
	*ret = policy_caller_subject(c);
	ret->user = user;
	if (given && !policy_name_ok(user))
		warn_name("--user", "user", user);
	if (groups_arg != NULL) {
		ret->ngroups = split_list(groups_arg, names, POLICY_GROUPS_MAX);
		ret->groups = names;
		for (size_t i = 0; i < ret->ngroups; i++)
			if (!policy_name_ok(names[i]))
				warn_name("--groups", "group", names[i]);
	}
	return 0;
}

static int
do_show(const char *file, const char *user, char *groups_arg, bool trust)
{
	_cleanup_free_ char *text = NULL, *ttext = NULL;
	_cleanup_free_ const char **names = NULL;
	_cleanup_(policy_caller_done) struct policy_caller who = {};
	struct policy *p = NULL;
	struct policy_resolved res;
	struct policy_subject subj = {};
	char err[POLICY_ERR_MAX + POLICY_PATH_MAX + 16];
	size_t len = 0, tlen = 0, ng;
	unsigned line;
	int r;

	r = read_plain(file, &text, &len);
	if (r < 0) {
		fprintf(stderr, "%s: cannot read: %s\n", file, strerror(-r));
		return 1;
	}
	r = policy_parse_string(text, len, file, &p, &line, err, sizeof(err));
	if (r < 0) {
		(void) policy_check_string(text, len, file, print_error, NULL);
		fprintf(stderr,
			"sandcap: policy show: %s is not valid; fix it first "
			"(sandcap policy check %s)\n",
			file, file);
		return 1;
	}
	names = calloc(POLICY_GROUPS_MAX, sizeof(*names));
	if (names == NULL) {
		policy_free(p);
		fprintf(stderr, "sandcap: policy show: out of memory\n");
		return SC_EXIT_FAILURE;
	}
	r = show_who(user, groups_arg, &who, names, &subj);
	if (r != 0) {
		policy_free(p);
		return r;
	}
	user = subj.user;
	ng = subj.ngroups;
	policy_resolve(p, &subj, &res);

	printf("policy:  %s\n", file);
	printf("user:    %s\n", user);
	printf("groups: ");
	for (size_t i = 0; i < ng; i++)
		printf(" %s", subj.groups[i]);
	printf("%s\n", ng == 0 ? " (none)" : "");
	if (res.allowed)
		printf("allowed: yes\n");
	else
		printf("allowed: no (%s)\n", res.deny_reason);
	show_limits(p, &res);
	printf("\nrequired isolation: net %s (%s), fs %s (%s)\n", policy_net_name(res.net_required),
	       res.net_required_src, policy_fs_name(res.fs_required), res.fs_required_src);
	printf("cgroup_root: %s\nworkspace_root: %s\n", policy_cgroup_root(p),
	       policy_workspace_root(p));

	r = trust ? policy_read_trusted(file, &ttext, &tlen, err, sizeof(err)) : 0;
	if (r < 0)
		fprintf(stderr, "sandcap: note: %s would be refused by the helper: %s\n", file,
			err);
	policy_free(p);
	return 0;
}

int
cmd_policy(int argc, char **argv)
{
	const char *file = NULL, *user = NULL, *sub;
	char *groups = NULL;
	bool trust = true, strict = false, show;

	if (argc < 2) {
		usage(stderr);
		return SC_EXIT_FAILURE;
	}
	sub = argv[1];
	if (streq(sub, "--help") || streq(sub, "-h") || streq(sub, "help")) {
		usage(stdout);
		return 0;
	}
	if (!streq(sub, "check") && !streq(sub, "show")) {
		fprintf(stderr,
			"sandcap: policy: unknown subcommand '%s'; use check or show "
			"(sandcap policy --help)\n",
			sub);
		return SC_EXIT_FAILURE;
	}
	show = streq(sub, "show");
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (streq(a, "--help") || streq(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (streq(a, "--no-trust")) {
			trust = false;
		} else if (!show && streq(a, "--strict")) {
			strict = true;
		} else if (show && (streq(a, "--user") || streq(a, "-u"))) {
			if (++i >= argc) {
				fprintf(stderr, "sandcap: policy show: --user needs a user name\n");
				return SC_EXIT_FAILURE;
			}
			user = argv[i];
		} else if (show && strneq(a, "--user=", 7)) {
			user = a + 7;
		} else if (show && streq(a, "--groups")) {
			if (++i >= argc) {
				fprintf(stderr,
					"sandcap: policy show: --groups needs a list of groups\n");
				return SC_EXIT_FAILURE;
			}
			groups = argv[i];
		} else if (show && strneq(a, "--groups=", 9)) {
			groups = argv[i] + 9;
		} else if (streq(a, "--")) {
			if (i + 1 < argc && file == NULL)
				file = argv[++i];
			if (i + 1 < argc) {
				fprintf(stderr, "sandcap: policy %s: too many arguments\n", sub);
				return SC_EXIT_FAILURE;
			}
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr,
				"sandcap: policy %s: unknown option '%s' (sandcap policy --help)\n",
				sub, a);
			return SC_EXIT_FAILURE;
		} else if (file == NULL) {
			file = a;
		} else {
			fprintf(stderr, "sandcap: policy %s: too many arguments: '%s'\n", sub, a);
			return SC_EXIT_FAILURE;
		}
	}
	if (file == NULL)
		file = SC_POLICY_PATH;
	if (user != NULL && user[0] == '\0') {
		fprintf(stderr, "sandcap: policy show: --user needs a user name\n");
		return SC_EXIT_FAILURE;
	}
	return show ? do_show(file, user, groups, trust) : do_check(file, trust, strict);
}
