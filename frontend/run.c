/* SPDX-License-Identifier: MIT */
/* `sandcap run`: parse, decide how each limit is enforced, run the sandbox (supervise.c), decide
 * the verdict (verdict.c) and report it (report.c).  DESIGN.md "The flow of one sandcap run". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cgstats.h"
#include "client.h"
#include "commands.h"
#include "control.h"
#include "fd-util.h"
#include "isolate.h"
#include "json.h"
#include "keeper.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "policy.h"
#include "profile.h"
#include "protect.h"
#include "report.h"
#include "supervise.h"
#include "verdict.h"

static void
fclosep_(FILE **f)
{
	if (*f != NULL && *f != stdout)
		(void) fclose(*f);
}

/* "<uid>-<12 hex>", chosen by sandcap in rlimit mode. */
static void
make_id(char *buf, size_t bufsz)
{
	uint8_t rnd[6] = {};

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
		uint64_t t = (uint64_t) getpid() ^ ((uint64_t) time(NULL) << 16);

		memcpy(rnd, &t, sizeof(rnd));
	}
	snprintf(buf, bufsz, "%u-%02x%02x%02x%02x%02x%02x", (unsigned) getuid(), rnd[0], rnd[1],
		 rnd[2], rnd[3], rnd[4], rnd[5]);
}

static const char *
strip_sandcap_prefix(const char *s)
{
	return strneq(s, "sandcap: ", 5) ? s + 5 : s;
}

/* The cgroup limits cannot be enforced as asked (no helper, the policy's refusal
 * (refused), or --no-cgroup): refuse, or with --fallback substitute rlimits and say so.
 * Returns 0 or -EINVAL after printing. */
static int
resolve_cgroup_fallback(struct run_opts *o, struct report *rep, const char *reason,
			bool refused)
{
	static const char *const names[] = { "--memory", "--cpu", "--pids", "--disk" };
	const uint64_t vals[] = { o->memory, o->cpu_percent, o->pids, o->disk };
	bool any = false;

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		if (vals[i] == 0)
			continue;
		any = true;
		if (!o->fallback) {
			fprintf(stderr, "sandcap: %s needs the sandcap helper (cgroup v2), which %s: %s; "
				"%s or pass --fallback to accept %s instead\n", names[i],
				refused ? "refused you" : "is not available", reason,
				refused ? "ask the admin (sandcap policy show)" :
				"install it (see sandcap doctor)",
				i == 0 ? "RLIMIT_AS" : i == 1 ? "no CPU limit" :
				i == 2 ? "RLIMIT_NPROC" : "RLIMIT_FSIZE");
			return -EINVAL;
		}
	}
	if (!any)
		return 0;

	/* Substitutes (documented in sandcap(1) and docs/report.md).  An explicit rlimit of the
	 * same kind is kept if it is tighter. */
	if (o->memory > 0) {
		if (!o->rl[RUN_RL_AS].set || o->rl[RUN_RL_AS].value > o->memory) {
			o->rl[RUN_RL_AS] = (struct run_rlimit_req) { true, o->memory, "--memory" };
		}
		report_add_limit(rep, "memory", o->memory);
		report_add_enforcement(rep, "memory", "rlimit (RLIMIT_AS, --fallback)");
	}
	if (o->cpu_percent > 0) {
		report_add_limit(rep, "cpu_percent", o->cpu_percent);
		report_add_enforcement(rep, "cpu", "none (not enforced)");
	}
	if (o->pids > 0) {
		if (!o->rl[RUN_RL_NPROC].set || o->rl[RUN_RL_NPROC].value > o->pids)
			o->rl[RUN_RL_NPROC] = (struct run_rlimit_req) { true, o->pids, "--pids" };
		report_add_limit(rep, "pids", o->pids);
		report_add_enforcement(rep, "pids", "rlimit (RLIMIT_NPROC, per user, --fallback)");
	}
	if (o->disk > 0) {
		if (!o->rl[RUN_RL_FSIZE].set || o->rl[RUN_RL_FSIZE].value > o->disk)
			o->rl[RUN_RL_FSIZE] = (struct run_rlimit_req) { true, o->disk, "--disk" };
		report_add_limit(rep, "disk", o->disk);
		report_add_enforcement(rep, "disk", "rlimit (RLIMIT_FSIZE, per file, --fallback)");
	}
	if (!o->quiet)
		fprintf(stderr, "sandcap: warning: %s; --fallback: memory -> RLIMIT_AS, pids -> "
			"RLIMIT_NPROC (per user), disk -> RLIMIT_FSIZE (per file), cpu -> not "
			"enforced\n", reason);
	return 0;
}

static void
compose_message(const struct run_opts *o, const struct sv_outcome *out, const struct verdict *v,
		const struct cg_usage *cg, char *buf, size_t bufsz)
{
	char a[32], b[32], esc[128];
	const char *sig = v->signal > 0 ? sigabbrev_np(v->signal) : NULL;

	switch (v->kind) {
	case VERDICT_OK:
	case VERDICT_EXIT:
		snprintf(buf, bufsz, "the command exited with status %d%s", v->exit_code,
			 cg->has_memory_events && cg->oom > 0 && cg->oom_kill == 0 ?
			 " (some allocations failed at the memory limit: memory.events oom > 0, "
			 "nothing was OOM-killed)" : "");
		break;
	case VERDICT_SIGNAL:
		/* oom_kill counts kills by any OOM killer; without oom in the leaf it was the
		 * host's global OOM killer, not the sandbox's limit (DESIGN.md "Results"). */
		snprintf(buf, bufsz, "the command was killed by signal %d (SIG%s)%s", v->signal,
			 sig != NULL ? sig : "?",
			 cg->has_memory_events && cg->oom_kill > 0 && cg->oom == 0 ?
			 ": the host's global OOM killer (the machine ran out of memory; the "
			 "sandbox's own limit was not reached)" : "");
		break;
	case VERDICT_TIMEOUT:
		format_duration_ms(out->wall_ms, a, sizeof(a));
		format_duration_ms(o->timeout_ms, b, sizeof(b));
		if (out->grace_expired) {
			char g[32];

			format_duration_ms(o->grace_ms, g, sizeof(g));
			snprintf(buf, bufsz, "killed after %s (limit %s): SIGTERM, then SIGKILL "
				 "after the %s grace", a, b, g);
		} else if (out->signaled && out->signal != SIGTERM) {
			/* Not our SIGKILL (the grace had not expired): say what ended it. */
			char g[32];

			format_duration_ms(o->grace_ms, g, sizeof(g));
			snprintf(buf, bufsz, "stopped after %s (limit %s): SIGTERM, then killed by "
				 "SIG%s before the %s grace was over", a, b, sig != NULL ? sig : "?",
				 g);
		} else if (out->exited) {
			snprintf(buf, bufsz, "stopped after %s (limit %s): exited with status %d "
				 "after SIGTERM", a, b, out->exit_code);
		} else {
			snprintf(buf, bufsz, "stopped after %s (limit %s): ended on SIGTERM", a, b);
		}
		break;
	case VERDICT_CPU_TIME:
		if (out->cpu_budget_fired) {
			snprintf(buf, bufsz, "the sandbox's CPU time budget was spent: killed");
			break;
		}
		format_duration_ms(o->rl[RUN_RL_CPU].value, b, sizeof(b));
		snprintf(buf, bufsz, "CPU time limit reached (limit %s per process, RLIMIT_CPU): "
			 "killed by SIG%s", b, sig != NULL ? sig : "?");
		break;
	case VERDICT_FSIZE:
		format_size(o->rl[RUN_RL_FSIZE].value, b, sizeof(b));
		snprintf(buf, bufsz, "file size limit reached (limit %s, %s): killed by SIGXFSZ", b,
			 o->rl[RUN_RL_FSIZE].source);
		break;
	case VERDICT_SETUP_ERROR:
		if (out->setup == SV_SETUP_EXEC)
			snprintf(buf, bufsz, "cannot execute '%s': %s",
				 log_escape(o->argv[0], esc, sizeof(esc)), strerror(out->setup_errno));
		else
			snprintf(buf, bufsz, "%s", strip_sandcap_prefix(out->setup_msg));
		break;
	case VERDICT_MEMORY:
		format_size(o->memory, b, sizeof(b));
		snprintf(buf, bufsz, "memory limit hit: the OOM killer ended %llu process%s%s%s%s",
			 (unsigned long long) cg->oom_kill, cg->oom_kill == 1 ? "" : "es",
			 o->memory > 0 ? " (limit " : "", o->memory > 0 ? b : "",
			 o->memory > 0 ? ")" : "");
		break;
	case VERDICT_PIDS:
		snprintf(buf, bufsz, "process limit hit: %llu fork%s refused",
			 (unsigned long long) cg->pids_max_events,
			 cg->pids_max_events == 1 ? " was" : "s were");
		break;
	case VERDICT_DISK:
		format_size(cg->disk_used, b, sizeof(b));
		snprintf(buf, bufsz, "the workspace is full (%s used)", b);
		break;
	case _VERDICT_MAX:
		snprintf(buf, bufsz, "%s limit hit", verdict_name(v->kind));
		break;
	}
}


/* ---- the caller's policy, read without privilege (the file is normally 0644) ---- */

/* Resolve the installed policy for the calling user.  Used for early refusals (isolation
 * the policy requires) and by `sandcap trace` (the ceilings); the helper always decides again
 * for itself.  Returns 0; -ENOENT when there is no policy file (today's behaviour: nothing
 * to apply) or the caller has no passwd entry; any other -errno when the file exists but
 * cannot be trusted, read or parsed, with the refusal in msg: the caller must refuse to run,
 * in every mode, or a typo in the policy would silently drop what it requires (#14
 * item 10). */
static int
caller_policy(struct policy_resolved *ret, char *msg, size_t msglen)
{
	_cleanup_free_ char *text = NULL, *user = NULL;
	char err[POLICY_ERR_MAX] = "", *owned[128] = { NULL };
	const char *names[128];
	struct policy_subject subj;
	struct policy *p = NULL;
	struct passwd *pw;
	gid_t gids[128], pgid;
	int ngids = ELEMENTSOF(gids), r;
	unsigned line = 0;
	size_t len = 0, ng = 0;

	r = policy_read_trusted(SC_POLICY_PATH, &text, &len, err, sizeof(err));
	if (r == -ENOENT)
		return r;
	if (r < 0) {
		snprintf(msg, msglen, "the policy %s cannot be used: %s; refusing to run until the "
			 "admin fixes it (sandcap policy check %s; sandbox.ini(5))", SC_POLICY_PATH,
			 err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
		return r == -ENOENT ? -EACCES : r;
	}
	r = policy_parse_string(text, len, SC_POLICY_PATH, &p, &line, err, sizeof(err));
	if (r < 0) {
		/* err is "FILE:LINE: message". */
		snprintf(msg, msglen, "the policy %s is invalid (%s); refusing to run until the admin "
			 "fixes it: sandcap policy check %s lists every error", SC_POLICY_PATH,
			 err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
		return r == -ENOENT ? -EINVAL : r;
	}
	pw = getpwuid(getuid());
	if (pw == NULL) {
		policy_free(p);
		return -ENOENT;
	}
	user = strdup(pw->pw_name);
	pgid = pw->pw_gid;
	if (user == NULL) {
		policy_free(p);
		snprintf(msg, msglen, "cannot resolve the policy: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* As the helper: no NSS group lookup when no group is named (same result, faster). */
	if (!policy_names_groups(p) || getgrouplist(user, pgid, gids, &ngids) < 0)
		ngids = 0;
	for (int i = 0; i < ngids && ng < ELEMENTSOF(names); i++) {
		struct group *gr = getgrgid(gids[i]);

		if (gr != NULL && (owned[ng] = strdup(gr->gr_name)) != NULL) {
			names[ng] = owned[ng];
			ng++;
		}
	}
	subj = (struct policy_subject) { .user = user, .groups = names, .ngroups = ng };
	policy_resolve(p, &subj, ret);
	for (size_t i = 0; i < ng; i++)
		free(owned[i]);
	policy_free(p);
	return 0;
}

/* ---- --profile NAME: its settings become option words before the command line's ---- */

/* Options of `sandcap run` that take no value; every other option word takes one. */
static bool
is_flag(const char *w)
{
	static const char *const flags[] = { "--no-cgroup", "--fallback", "--keep-fds", "-q",
					     "--quiet", "-h", "--help" };

	for (size_t i = 0; w != NULL && i < ELEMENTSOF(flags); i++)
		if (streq(w, flags[i]))
			return true;
	return false;
}

/* If argv has --profile NAME (or --profile=NAME) among its options, load it and build a new
 * argv: argv[0], the profile's words, then argv without the --profile option.  *ret_argv is
 * malloc'ed (the words belong to prof).  Returns 0 (no profile: *ret_argv = NULL), or
 * -EINVAL after printing why. */
static int
expand_profile(int argc, char **argv, struct profile *prof, int *ret_argc, char ***ret_argv)
{
	char err[PROFILE_ERR_MAX];
	const char *name = NULL;
	int at = -1, width = 0, n;
	char **nv;

	*ret_argv = NULL;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (streq(w, "--") || w[0] != '-')
			break;
		if (strneq(w, "--profile=", 10)) {
			name = w + 10;
			at = i;
			width = 1;
		} else if (streq(w, "--profile")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "sandcap: --profile: missing value; see 'sandcap run --help'\n");
				return -EINVAL;
			}
			name = argv[i + 1];
			at = i;
			width = 2;
			i++;
		} else if (!is_flag(w) && strchr(w, '=') == NULL) {
			i++;            /* skip the option's value */
		}
	}
	if (name == NULL)
		return 0;
	if (profile_load(name, prof, err, sizeof(err)) < 0) {
		fprintf(stderr, "sandcap: --profile %s: %s\n", name, err);
		return -EINVAL;
	}
	nv = calloc((size_t) argc + prof->nwords + 1, sizeof(char *));
	if (nv == NULL) {
		profile_done(prof);
		return -ENOMEM;
	}
	n = 0;
	nv[n++] = argv[0];
	for (size_t i = 0; i < prof->nwords; i++)
		nv[n++] = prof->words[i];
	for (int i = 1; i < argc; i++)
		if (i < at || i >= at + width)
			nv[n++] = argv[i];
	nv[n] = NULL;
	*ret_argc = n;
	*ret_argv = nv;
	return 0;
}

/* ---- the control socket: `sandcap ps` and `sandcap kill` ---- */

struct run_ctl {
	const char *id;
	const char *mode;
	char *const *argv;
	const struct sc_session *sess;         /* NULL in rlimit mode */
	const struct run_opts *o;
	int listen_fd;
	char path[PATH_MAX];                    /* the control socket's, for control_unlisten() */
	struct sv_state *sv;                    /* while serving */
};

static int
read_u64_at(int dirfd, const char *name, uint64_t *ret)
{
	char buf[64];
	int r;

	if (dirfd < 0)
		return -EBADF;
	r = read_full_at(dirfd, name, buf, sizeof(buf), NULL);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	return parse_u64_range(buf, 0, UINT64_MAX, ret);
}

static int
ctl_status(void *userdata, char *buf, size_t len)
{
	struct run_ctl *c = userdata;
	struct cg_usage u = {};
	struct json j;
	uint64_t v = 0;
	FILE *f = fmemopen(buf, len, "w");
	char line[1024] = "";
	size_t used = 0;

	if (f == NULL)
		return -errno;
	for (char *const *a = c->argv; *a != NULL && used + 2 < sizeof(line); a++)
		used += (size_t) snprintf(line + used, sizeof(line) - used, "%s%s",
					  a == c->argv ? "" : " ", *a);
	if (c->sess != NULL)
		(void) cgstats_read(c->sess->leaf_fd, c->sess->ws_fd, &u);
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "id"); json_string(&j, c->id);
	json_key(&j, "mode"); json_string(&j, c->mode);
	json_key(&j, "sandcap_pid"); json_uint(&j, (uint64_t) getpid());
	json_key(&j, "command_line"); json_string(&j, line);
	json_key(&j, "age_ms"); json_uint(&j, c->sv != NULL ? sv_age_ms(c->sv) : 0);
	json_key(&j, "limits");
	json_object_begin(&j);
	if (c->sess != NULL) {
		json_key(&j, "memory"); json_uint(&j, c->sess->effective.memory);
		json_key(&j, "cpu_percent"); json_uint(&j, c->sess->effective.cpu_percent);
		json_key(&j, "pids"); json_uint(&j, c->sess->effective.pids);
		json_key(&j, "disk"); json_uint(&j, c->sess->effective.disk);
	}
	if (c->o->has_timeout) {
		json_key(&j, "timeout_ms"); json_uint(&j, c->o->timeout_ms);
	}
	json_object_end(&j);
	json_key(&j, "memory_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "memory.current", &v) == 0)
		json_uint(&j, v);
	else
		json_null(&j);
	json_key(&j, "memory_peak");
	if (u.has_memory_peak) json_uint(&j, u.memory_peak); else json_null(&j);
	json_key(&j, "cpu_ms");
	if (u.has_cpu_stat) json_uint(&j, u.cpu_usage_usec / 1000); else json_null(&j);
	json_key(&j, "pids_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "pids.current", &v) == 0)
		json_uint(&j, v);
	else
		json_null(&j);
	json_key(&j, "disk_used");
	if (u.has_disk_used) json_uint(&j, u.disk_used); else json_null(&j);
	json_object_end(&j);
	if (json_finish(&j) < 0 || fclose(f) != 0)
		return -ENOSPC;
	return 0;
}

static int
ctl_kill(void *userdata, int sig)
{
	struct run_ctl *c = userdata;

	if (c->sv == NULL)
		return -ESRCH;
	sv_signal(c->sv, sig);
	if (sig == SIGSTOP || sig == SIGTSTP)
		return 0;
	sv_signal(c->sv, SIGCONT);      /* a stopped sandbox must see it */
	return 0;
}

static void
ctl_ready(void *userdata, struct sv_state *sv)
{
	struct run_ctl *c = userdata;
	struct control_ops ops = { ctl_status, ctl_kill, c };

	c->sv = sv;
	(void) control_serve_one(c->listen_fd, &ops);
}

/* ---- sandcap trace: what the run used, and the limits that would fit it ---- */

struct trace_opts {
	bool on;
	uint64_t headroom_percent;
};

/* The largest regular file under dirfd (the workspace), depth-limited. */
static void
largest_file(int dir_fd, unsigned depth, uint64_t *max)
{
	_cleanup_close_ int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0 || depth > 32)
		return;
	d = fdopendir(fd);
	if (d == NULL)
		return;
	fd = -EBADF;    /* owned by d */
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > *max)
			*max = (uint64_t) st.st_size;
		else if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
							 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				largest_file(sub, depth + 1, max);
		}
	}
	closedir(d);
}

static uint64_t
with_headroom(uint64_t v, uint64_t percent, uint64_t round_to, uint64_t min)
{
	unsigned __int128 x = (unsigned __int128) v * (100 + percent);
	uint64_t r = (uint64_t) ((x + 99) / 100);

	if (round_to > 1)
		r = (r + round_to - 1) / round_to * round_to;
	return r < min ? min : r;
}

static void
size_word(uint64_t v, char *buf, size_t len)
{
	if (v % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%lluG", (unsigned long long) (v >> 30));
	else if (v % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long) (v >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long) ((v + 1023) >> 10));
}

static void
dur_word(uint64_t ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long) (ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long) ms);
}

struct trace_result {
	bool has_memory, has_pids, has_disk, has_fsize;
	uint64_t memory, pids, cpu_ms, wall_ms, disk, fsize;
	char flags[512];
};

static void
trace_suggest(const struct trace_opts *t, const struct report *rep, uint64_t fsize_max,
	      bool cgroup, struct trace_result *tr)
{
	uint64_t h = t->headroom_percent;
	char w[32];
	size_t n = 0;

	memset(tr, 0, sizeof(*tr));
	tr->cpu_ms = rep->cpu_user_ms + rep->cpu_system_ms;
	tr->wall_ms = rep->wall_ms;
	if (cgroup && rep->cg.has_memory_peak) {
		tr->has_memory = true;
		tr->memory = with_headroom(rep->cg.memory_peak, h, UINT64_C(1) << 20, 1 << 20);
		size_word(tr->memory, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--memory %s ", w);
	}
	if (cgroup && rep->cg.has_pids_peak) {
		tr->has_pids = true;
		tr->pids = with_headroom(rep->cg.pids_peak, h, 1, 1);
		if (tr->pids <= rep->cg.pids_peak)
			tr->pids = rep->cg.pids_peak + 1;
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--pids %llu ",
				       (unsigned long long) tr->pids);
	}
	dur_word(with_headroom(tr->cpu_ms, h, 100, 100), w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--cpu-time %s ", w);
	dur_word(with_headroom(tr->wall_ms, h, 100, 1000), w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--timeout %s ", w);
	if (cgroup && rep->cg.has_disk_used) {
		tr->has_disk = true;
		tr->disk = with_headroom(rep->cg.disk_used, h, UINT64_C(1) << 20, 1 << 20);
		size_word(tr->disk, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--disk %s ", w);
	}
	if (cgroup && rep->cg.has_disk_used) {
		tr->has_fsize = true;
		tr->fsize = with_headroom(fsize_max, h, UINT64_C(1) << 20, 1 << 20);
		size_word(tr->fsize, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--fsize %s ", w);
	}
	if (n > 0)
		tr->flags[n - 1] = '\0';
}

static void
trace_print(FILE *f, const struct trace_opts *t, const struct report *rep, uint64_t fsize_max,
	    const struct trace_result *tr)
{
	char a[32];

	fprintf(f, "sandcap trace: what the command used (mode: %s)\n", rep->mode);
	if (rep->cg.has_memory_peak) {
		format_size(rep->cg.memory_peak, a, sizeof(a));
		fprintf(f, "  peak memory       %s (memory.peak: anonymous, page cache, tmpfs)\n", a);
	} else {
		format_size(rep->max_rss, a, sizeof(a));
		fprintf(f, "  peak memory       not measured without a cgroup; largest RSS %s\n", a);
	}
	if (rep->cg.has_pids_peak)
		fprintf(f, "  peak pids         %llu (pids.peak: processes and threads)\n",
			(unsigned long long) rep->cg.pids_peak);
	else
		fprintf(f, "  peak pids         not measured without a cgroup\n");
	fprintf(f, "  CPU time          %llu ms (%llu user + %llu system)\n",
		(unsigned long long) rep->cpu_user_ms + (unsigned long long) rep->cpu_system_ms,
		(unsigned long long) rep->cpu_user_ms, (unsigned long long) rep->cpu_system_ms);
	fprintf(f, "  wall time         %llu ms\n", (unsigned long long) rep->wall_ms);
	if (rep->cg.has_disk_used) {
		format_size(rep->cg.disk_used, a, sizeof(a));
		fprintf(f, "  workspace         %s at the end\n", a);
		format_size(fsize_max, a, sizeof(a));
		fprintf(f, "  largest file      %s (in the workspace)\n", a);
	} else {
		fprintf(f, "  workspace         none (no helper)\n");
	}
	fprintf(f, "  open files peak   not measured (would need polling)\n");
	fprintf(f, "\nlimits that fit it, with %llu%% headroom:\n  sandcap run %s -- ...\n",
		(unsigned long long) t->headroom_percent, tr->flags);
	fprintf(f, "\nas a profile (~/.config/sandcap/profiles.ini):\n  [traced]\n");
	if (tr->has_memory) {
		size_word(tr->memory, a, sizeof(a));
		fprintf(f, "  memory = %s\n", a);
	}
	if (tr->has_pids)
		fprintf(f, "  pids = %llu\n", (unsigned long long) tr->pids);
	dur_word(with_headroom(tr->cpu_ms, t->headroom_percent, 100, 100), a, sizeof(a));
	fprintf(f, "  cpu-time = %s\n", a);
	dur_word(with_headroom(tr->wall_ms, t->headroom_percent, 100, 1000), a, sizeof(a));
	fprintf(f, "  timeout = %s\n", a);
	if (tr->has_disk) {
		size_word(tr->disk, a, sizeof(a));
		fprintf(f, "  disk = %s\n", a);
	}
	if (tr->has_fsize) {
		size_word(tr->fsize, a, sizeof(a));
		fprintf(f, "  fsize = %s\n", a);
	}
}

/* ---- cgroup mode: the helper session behind the supervisor's hooks ---- */

static int
cg_attach(int pidfd, void *userdata)
{
	struct sc_session *s = userdata;
	char err[CLIENT_ERR_MAX] = "";
	int r = client_attach(s, pidfd, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "sandcap: cannot move the sandbox into its cgroup: %s\n",
			err[0] != '\0' ? err : strerror(-r));
	return r;
}

static void
cg_kill(void *userdata)
{
	struct sc_session *s = userdata;
	char err[CLIENT_ERR_MAX] = "";

	if (s->attached && !s->dead && client_kill(s, err, sizeof(err)) == -ETIMEDOUT)
		fprintf(stderr, "sandcap: warning: %s; sandcap kills the processes it can see\n", err);
}

static int
cg_cpu_used(void *userdata, uint64_t *ret)
{
	struct sc_session *s = userdata;
	struct cg_usage u;
	int r = cgstats_read(s->leaf_fd, -EBADF, &u);

	if (r < 0)
		return r;
	if (!u.has_cpu_stat)
		return -ENODATA;
	*ret = u.cpu_usage_usec;
	return 0;
}

static void
session_closep_(struct sc_session *s)
{
	client_close(s);
}

static uint64_t
tv_ms(const struct timeval *tv)
{
	return (uint64_t) tv->tv_sec * 1000 + (uint64_t) tv->tv_usec / 1000;
}

/* Write the report (if asked) and the summary (unless -q); returns the exit status. */
static int
finish(const struct run_opts *o, FILE *report_file, struct report *rep)
{
	if (report_file != NULL && report_write_json(report_file, rep) < 0)
		fprintf(stderr, "sandcap: --report: cannot write the report: %s\n", strerror(errno));
	if (!o->quiet || rep->v.kind == VERDICT_SETUP_ERROR) {
		if (rep->v.kind == VERDICT_SETUP_ERROR && o->quiet)
			fprintf(stderr, "sandcap: %s\n", rep->message);
		else
			report_write_summary(stderr, rep);
	}
	if (report_file != NULL && report_file != stdout && fflush(report_file) != 0) {
		fprintf(stderr, "sandcap: --report: cannot write the report: %s\n", strerror(errno));
		return SC_EXIT_FAILURE;
	}
	return rep->v.sc_exit;
}

static void
trace_write_json(FILE *f, const struct trace_opts *t, const struct report *rep,
		 uint64_t fsize_max, const struct trace_result *tr)
{
	struct json j;

	fprintf(f, "{\"sandcap_trace\": 1, \"headroom_percent\": %llu, \"run\": ",
		(unsigned long long) t->headroom_percent);
	(void) report_write_json(f, rep);
	fprintf(f, ", \"used\": ");
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "memory_peak");
	if (rep->cg.has_memory_peak)
		json_uint(&j, rep->cg.memory_peak);
	else
		json_null(&j);
	json_key(&j, "pids_peak");
	if (rep->cg.has_pids_peak)
		json_uint(&j, rep->cg.pids_peak);
	else
		json_null(&j);
	json_key(&j, "cpu_ms");
	json_uint(&j, tr->cpu_ms);
	json_key(&j, "wall_ms");
	json_uint(&j, tr->wall_ms);
	json_key(&j, "disk_used");
	if (rep->cg.has_disk_used)
		json_uint(&j, rep->cg.disk_used);
	else
		json_null(&j);
	json_key(&j, "largest_file");
	if (rep->cg.has_disk_used)
		json_uint(&j, fsize_max);
	else
		json_null(&j);
	json_key(&j, "open_files_peak");
	json_null(&j);
	json_object_end(&j);
	(void) json_finish(&j);
	fprintf(f, ", \"suggested\": ");
	json_init(&j, f);
	json_object_begin(&j);
	if (tr->has_memory) {
		json_key(&j, "memory");
		json_uint(&j, tr->memory);
	}
	if (tr->has_pids) {
		json_key(&j, "pids");
		json_uint(&j, tr->pids);
	}
	json_key(&j, "cpu_time_ms");
	json_uint(&j, with_headroom(tr->cpu_ms, t->headroom_percent, 100, 100));
	json_key(&j, "timeout_ms");
	json_uint(&j, with_headroom(tr->wall_ms, t->headroom_percent, 100, 1000));
	if (tr->has_disk) {
		json_key(&j, "disk");
		json_uint(&j, tr->disk);
	}
	if (tr->has_fsize) {
		json_key(&j, "fsize");
		json_uint(&j, tr->fsize);
	}
	json_key(&j, "flags");
	json_string(&j, tr->flags);
	json_object_end(&j);
	(void) json_finish(&j);
	fprintf(f, "}\n");
}

static void
freep_argv_(char ***p)
{
	free(*p);
}

static void
profile_donep_(struct profile *p)
{
	profile_done(p);
}

static void
ctl_closep_(struct run_ctl *c)
{
	if (c->listen_fd >= 0) {
		c->listen_fd = safe_close(c->listen_fd);
		control_unlisten(c->path);
	}
}

static int
run_main(int argc, char **argv, const struct trace_opts *trace)
{
	_cleanup_(fclosep_) FILE *report_file = NULL;
	_cleanup_(session_closep_) struct sc_session sess;
	_cleanup_(profile_donep_) struct profile prof = {};
	_cleanup_(freep_argv_) char **pargv = NULL;
	_cleanup_(ctl_closep_) struct run_ctl ctl = { .listen_fd = -EBADF };
	struct policy_resolved pol;
	bool have_pol = false;
	uint64_t fsize_max = 0;
	int pargc = 0;
	bool cgroup = false, refused = false;

	uint64_t cpu_budget_ms = 0;
	struct run_opts o;
	struct isolate_plan plan = {};
	struct keeper_info keeper = { .keeper_pidfd = -EBADF };
	struct sv_rlimit rl[_RUN_RL_MAX];
	struct sv_outcome out = {};
	struct verdict_input in = {};
	struct report rep = { .version = SC_VERSION, .mode = "rlimit" };
	char id[64], err[512] = "", message[512] = "";
	size_t n_rl = 0;
	int r;

	client_init(&sess);
	if (expand_profile(argc, argv, &prof, &pargc, &pargv) < 0)
		return SC_EXIT_FAILURE;
	if (pargv != NULL) {
		argc = pargc;
		argv = pargv;
	}
	r = run_args_parse(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : SC_EXIT_FAILURE;
	make_id(id, sizeof(id));
	rep.id = id;
	rep.argv = o.argv;
	rep.message = message;

	/* Open the report before anything runs, so a bad path costs nothing. */
	if (o.report_path != NULL) {
		if (streq(o.report_path, "-")) {
			report_file = stdout;
		} else {
			int fd = open(o.report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				      O_NOCTTY, 0644);

			if (fd >= 0)
				report_file = fdopen(fd, "w");
			if (report_file == NULL) {
				char esc[256];

				fprintf(stderr, "sandcap: --report: cannot open '%s': %s\n",
					log_escape(o.report_path, esc, sizeof(esc)), strerror(errno));
				if (fd >= 0)
					close(fd);
				return SC_EXIT_FAILURE;
			}
		}
	}

	r = caller_policy(&pol, err, sizeof(err));
	if (r < 0 && r != -ENOENT) {
		/* Even with --no-cgroup or --fallback: an admin's policy that cannot be read as
		 * written must not fail open (#14 item 10). */
		fprintf(stderr, "sandcap: %s\n", err);
		return SC_EXIT_FAILURE;
	}
	have_pol = r == 0;
	if (have_pol) {
		/* The front-end refuses what the helper would refuse, with the section named. */
		r = isolate_check_required(&o.iso, &pol, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "sandcap: %s\n", strip_sandcap_prefix(err));
			return SC_EXIT_FAILURE;
		}
	}

	/* cgroup mode unless --no-cgroup, when the helper is there and takes us. */
	if (o.no_cgroup) {
		snprintf(err, sizeof(err), "--no-cgroup was given");
	} else {
		r = client_open(&sess, err, sizeof(err));
		refused = r == -EPERM;          /* the helper ran: the policy said no */
		/* Installed but unusable, and nothing cgroup-only asked for: rlimit mode, said
		 * aloud (the policy's default limits do not apply).  A missing helper is the
		 * normal state of a host without sandcap's helper: no warning. */
		if (r < 0 && r != -ENOENT && !o.quiet && o.memory == 0 && o.cpu_percent == 0 &&
		    o.pids == 0 && o.disk == 0)
			/* One short line (#14 item 13): the reason up to its details, which
			 * sandcap doctor prints in full with the fix. */
		{
			const char *why = err[0] != '\0' ? err : strerror(-r);
			int n = (int) strcspn(why, ";(");

			while (n > 0 && why[n - 1] == ' ')
				n--;
			fprintf(stderr, "sandcap: warning: rlimit mode, the helper is unusable: %.*s "
				"(see sandcap doctor)\n", n, why);
		}
		if (r == 0) {
			struct sc_request req = {
				.memory = o.memory, .cpu_percent = o.cpu_percent, .pids = o.pids,
				.disk = o.disk, .timeout_ms = o.has_timeout ? o.timeout_ms : 0,
				.net = o.iso.net, .fs = o.iso.fs,
			};

			/* sandcap trace: as generous as the policy allows, for what was not given. */
			if (trace->on && have_pol && pol.allowed) {
				uint64_t *f[] = { &req.memory, &req.cpu_percent, &req.pids, &req.disk };
				const enum policy_limit l[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS,
								POLICY_DISK };

				for (size_t i = 0; i < ELEMENTSOF(f); i++)
					if (*f[i] == 0 && pol.ceiling[l[i]] != UINT64_MAX)
						*f[i] = pol.ceiling[l[i]];
			}

			r = client_create(&sess, &req, err, sizeof(err));
			if (r < 0) {
				fprintf(stderr, "sandcap: the sandcap helper refused the sandbox: %s\n",
					err[0] != '\0' ? err : strerror(-r));
				return SC_EXIT_FAILURE;
			}
			cgroup = true;
		}
	}
	if (cgroup) {
		const struct sc_request *e = &sess.effective;

		rep.mode = "cgroup";
		rep.id = sess.id;
		o.iso.workspace = sess.ws_path[0] != '\0' ? sess.ws_path : NULL;
		o.memory = e->memory;   /* as applied, for the messages */
		if (e->memory > 0) {
			report_add_limit(&rep, "memory", e->memory);
			report_add_enforcement(&rep, "memory", "cgroup");
		}
		if (e->cpu_percent > 0) {
			report_add_limit(&rep, "cpu_percent", e->cpu_percent);
			report_add_enforcement(&rep, "cpu", "cgroup");
		}
		if (e->pids > 0) {
			report_add_limit(&rep, "pids", e->pids);
			report_add_enforcement(&rep, "pids", "cgroup");
		}
		if (e->disk > 0) {
			report_add_limit(&rep, "disk", e->disk);
			report_add_enforcement(&rep, "disk", "tmpfs");
		}
		if (e->timeout_ms > 0 && !o.has_timeout) {
			/* The policy's default timeout: sandcap enforces it like --timeout. */
			o.has_timeout = true;
			o.timeout_ms = e->timeout_ms;
		}
		if (o.has_timeout && o.grace_ms >= CLIENT_HELPER_BACKSTOP_MS) {
			/* The helper kills the cgroup 10 s after the timeout: a longer grace
			 * would be cut short by it and reported as if honoured.  sandcap kills
			 * itself one second before, and says so (#14 item 13). */
			char g[32], b[32];

			format_duration_ms(o.grace_ms, g, sizeof(g));
			o.grace_ms = CLIENT_HELPER_BACKSTOP_MS - 1000;
			format_duration_ms(o.grace_ms, b, sizeof(b));
			if (!o.quiet)
				fprintf(stderr, "sandcap: warning: --grace %s: in cgroup mode the helper kills "
					"the sandbox 10s after its timeout; the grace period is %s\n", g, b);
		}
		if (sess.enforcement[0] != '\0')
			report_add_enforcement(&rep, "helper_notes", "%s", sess.enforcement);
		if (o.rl[RUN_RL_CPU].set) {
			/* A whole-sandbox budget from cpu.stat instead of RLIMIT_CPU. */
			report_add_limit(&rep, "cpu_time_ms", o.rl[RUN_RL_CPU].value);
			report_add_enforcement(&rep, "cpu_time", "cgroup (cpu.stat, whole sandbox)");
			cpu_budget_ms = o.rl[RUN_RL_CPU].value;
			o.rl[RUN_RL_CPU].set = false;
		}
	} else {
		r = resolve_cgroup_fallback(&o, &rep, err, refused);
		if (r < 0)
			return SC_EXIT_FAILURE;
	}
	if (o.has_timeout) {
		report_add_limit(&rep, "timeout_ms", o.timeout_ms);
		report_add_limit(&rep, "grace_ms", o.grace_ms);
		report_add_enforcement(&rep, "timeout", "sandcap");
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o.rl[l].value;

		if (!o.rl[l].set)
			continue;
		if (!streq(o.rl[l].source, run_rlimit_option(l)))
			continue;       /* a --fallback substitute: reported under its own name */
		report_add_limit(&rep, run_rlimit_key(l), v);
		report_add_enforcement(&rep, l == RUN_RL_CPU ? "cpu_time" : run_rlimit_key(l),
				       "rlimit");
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o.rl[l].value;

		if (!o.rl[l].set)
			continue;
		rl[n_rl].resource = run_rlimit_resource(l);
		rl[n_rl].option = o.rl[l].source;
		if (l == RUN_RL_CPU) {
			/* Whole seconds, rounded up; SIGXCPU at the soft limit, SIGKILL one
			 * second later if the command ignores it. */
			rl[n_rl].soft = (rlim_t) ((v + 999) / 1000);
			rl[n_rl].hard = rl[n_rl].soft + 1;
		} else {
			rl[n_rl].soft = rl[n_rl].hard = v >= (uint64_t) RLIM_INFINITY ?
				RLIM_INFINITY : (rlim_t) v;
		}
		n_rl++;
	}

	r = isolate_plan(&o.iso, &plan, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "sandcap: %s\n", strip_sandcap_prefix(err));
		return SC_EXIT_FAILURE;
	}
	if (o.has_fs || o.iso.n_rw > 0 || o.iso.n_ro > 0)
		report_add_enforcement(&rep, "fs", "%s", plan.fs_enforcement);
	if (o.has_net)
		report_add_enforcement(&rep, "net", "%s", plan.net_enforcement);
	if (!plan.seccomp && !plan.landlock_signal && (o.has_timeout || cpu_budget_ms > 0) &&
	    !o.fallback) {
		fprintf(stderr, "sandcap: --timeout/--cpu-time: this kernel has neither seccomp filters "
			"nor Landlock ABI 6, so the sandbox could stop sandcap and outlive the limit; "
			"pass --fallback to run so anyway\n");
		return SC_EXIT_FAILURE;
	}

	/* The supervisors (sandcap, its helper, the keeper) are off limits to the sandbox
	 * (protect.h, #14 item 3); not dumpable, so no /proc/PID/mem or ptrace without
	 * CAP_SYS_PTRACE.  In rlimit mode a keeper holds the tree if sandcap is killed
	 * (keeper.h, #14 item 11); in cgroup mode the helper does. */
	(void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!cgroup) {
		r = keeper_start(&keeper);
		if (r < 0) {
			fprintf(stderr, "sandcap: cannot start the keeper process: %s\n", strerror(-r));
			return SC_EXIT_FAILURE;
		}
		protect_add(&plan.protect, keeper.keeper);
		plan.protect.pgid = keeper.home_pgrp;
	} else {
		protect_add(&plan.protect, sess.helper_pid);
		plan.protect.pgid = getpgrp();
	}
	protect_add(&plan.protect, getpid());
	report_add_enforcement(&rep, "supervisor", "%s", plan.protect_enforcement);

	struct sv_spec spec = {
		.argv = o.argv,
		.rl = rl,
		.n_rl = n_rl,
		.iso = &o.iso,
		.plan = &plan,
		.has_timeout = o.has_timeout,
		.timeout_ms = o.timeout_ms,
		.grace_ms = o.grace_ms,
		.keep_fds = o.keep_fds,
	};
	spec.extra_fd = -1;
	spec.keeper_pidfd = cgroup ? -1 : keeper.keeper_pidfd;
	spec.home_pgrp = cgroup ? 0 : keeper.home_pgrp;
	ctl = (struct run_ctl) { .id = rep.id, .mode = rep.mode, .argv = o.argv,
				 .sess = cgroup ? &sess : NULL, .o = &o, .listen_fd = -EBADF };
	if (control_listen(rep.id, &ctl.listen_fd, ctl.path, sizeof(ctl.path)) == 0) {
		spec.extra_fd = ctl.listen_fd;
		spec.on_extra = ctl_ready;
		spec.extra_userdata = &ctl;
	} else if (!o.quiet) {
		fprintf(stderr, "sandcap: warning: no control socket (sandcap ps and sandcap kill will not see "
			"this sandbox)\n");
	}
	if (cgroup) {
		spec.tmpdir = o.iso.workspace;
		spec.exclude_pid = sess.helper_pid;
		spec.userdata = &sess;
		spec.attach = cg_attach;
		spec.kill_all = cg_kill;
		spec.cpu_budget_ms = cpu_budget_ms;
		spec.cpu_rate_percent = sess.effective.cpu_percent > 0 ? sess.effective.cpu_percent :
			(uint64_t) sysconf(_SC_NPROCESSORS_ONLN) * 100;
		spec.cpu_used_usec = cg_cpu_used;
	}
	r = sv_run(&spec, &out);
	if (r < 0)
		return SC_EXIT_FAILURE;
	if (cgroup) {
		/* The final counters, before DESTROY closes the leaf. */
		r = cgstats_read(sess.leaf_fd, sess.ws_fd, &rep.cg);
		if (r < 0)
			fprintf(stderr, "sandcap: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		if (trace->on && sess.ws_fd >= 0)
			largest_file(sess.ws_fd, 0, &fsize_max);
		r = client_destroy(&sess, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "sandcap: warning: teardown incomplete: %s\n",
				err[0] != '\0' ? err : strerror(-r));
		in.counters = rep.cg;
		in.disk_limit = sess.effective.disk;
		in.cpu_budget_fired = out.cpu_budget_fired;
	}

	in.setup = out.setup == SV_SETUP_EXEC ? VERDICT_SETUP_EXEC :
		   out.setup == SV_SETUP_FAILED ? VERDICT_SETUP_FAILED : VERDICT_SETUP_NONE;
	in.exec_errno = out.setup_errno;
	in.exited = out.exited;
	in.exit_code = out.exit_code;
	in.signaled = out.signaled;
	in.signal = out.signal;
	in.timeout_fired = out.timeout_fired;
	if (o.rl[RUN_RL_CPU].set) {
		in.cpu_limit_ms = (o.rl[RUN_RL_CPU].value + 999) / 1000 * 1000;
		in.main_cpu_ms = tv_ms(&out.main_ru.ru_utime) + tv_ms(&out.main_ru.ru_stime);
	}
	verdict_decide(&in, &rep.v);
	compose_message(&o, &out, &rep.v, &rep.cg, message, sizeof(message));

	rep.wall_ms = out.wall_ms;
	rep.cpu_user_ms = tv_ms(&out.tree_ru.ru_utime);
	rep.cpu_system_ms = tv_ms(&out.tree_ru.ru_stime);
	if (rep.cg.has_cpu_stat) {
		rep.cpu_user_ms = rep.cg.cpu_user_usec / 1000;
		rep.cpu_system_ms = rep.cg.cpu_system_usec / 1000;
	}
	rep.max_rss = (uint64_t) out.tree_ru.ru_maxrss * 1024;
	rep.has_max_rss = true;
	if (trace->on) {
		struct trace_result tr;

		trace_suggest(trace, &rep, fsize_max, cgroup, &tr);
		r = finish(&o, NULL, &rep);
		trace_print(stdout, trace, &rep, fsize_max, &tr);
		if (report_file != NULL)
			trace_write_json(report_file, trace, &rep, fsize_max, &tr);
		return r;
	}
	return finish(&o, report_file, &rep);
}

int
cmd_run(int argc, char **argv)
{
	const struct trace_opts t = { .on = false };

	return run_main(argc, argv, &t);
}

/* sandcap trace [--headroom N%] [sandcap run options] -- COMMAND: run it under the caller's
 * ceilings (or the limits given), then print what it used and the flags that fit it. */
int
cmd_trace(int argc, char **argv)
{
	struct trace_opts t = { .on = true, .headroom_percent = 25 };
	_cleanup_free_ char **nv = calloc((size_t) argc + 1, sizeof(char *));
	int n = 0;

	if (nv == NULL)
		return SC_EXIT_FAILURE;
	nv[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (streq(argv[i], "--") || argv[i][0] != '-') {
			/* the command and its arguments: passed on untouched */
			for (; i < argc; i++)
				nv[n++] = argv[i];
			break;
		}
		if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
			printf("Usage: sandcap trace [--headroom PERCENT] [sandcap run OPTIONS] -- COMMAND "
			       "[ARG...]\n\nRun COMMAND under your ceilings from the policy (or the "
			       "limits given), then print what it used (peak memory and pids, CPU and "
			       "wall time, workspace bytes, largest file) and the sandcap run flags and "
			       "profile that fit it with PERCENT headroom (default 25%%).  --report FILE "
			       "writes the same as JSON.  See sandcap(1).\n");
			return 0;
		}
		if (streq(argv[i], "--headroom") && i + 1 < argc)
			v = argv[++i];
		else if (strneq(argv[i], "--headroom=", 11))
			v = argv[i] + 11;
		if (v != NULL) {
			if (parse_percent(v, &t.headroom_percent) < 0 || t.headroom_percent > 1000) {
				fprintf(stderr, "sandcap: --headroom: invalid percentage '%s': expected a "
					"whole percentage from 0%% to 1000%%, e.g. 25%%\n", v);
				return SC_EXIT_FAILURE;
			}
			continue;
		}
		nv[n++] = argv[i];
		/* an option's value (--memory 1G) goes with it, even if it does not start with - */
		/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): argv[i], i < argc */
		if (!is_flag(argv[i]) && strchr(argv[i], '=') == NULL && i + 1 < argc)
			nv[n++] = argv[++i];
	}
	nv[n] = NULL;
	return run_main(n, nv, &t);
}

