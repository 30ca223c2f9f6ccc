/* SPDX-License-Identifier: MIT */
/* A session's report (every call's verdict and usage, the totals) and `session ls`. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "dir-util.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"
#include "report/json.h"
#include "run/session-cgroup.h"
#include "run/session-io.h"
#include "run/session-usercg.h"
#include "run/session.h"

#define LEDGER_MAX      SESSION_LEDGER_MAX
#define CALL_REPORT_MAX SESSION_REPORT_MAX

static int
add_call(const struct session_call *c, void *ud)
{
	struct session_totals *t = ud;

	t->calls++;
	t->wall_ms += c->wall_ms;
	t->cpu_ms += c->cpu_ms;
	return 0;
}

/* The ledger, malloc'ed and NUL-terminated, in *ret. */
static int
read_ledger(int dfd, char **ret)
{
	char *buf = malloc(LEDGER_MAX);
	size_t len;
	int r;

	if (buf == NULL)
		return -ENOMEM;
	r = read_full_at(dfd, "calls", buf, LEDGER_MAX, &len);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	return 0;
}

int
session_totals_read(int dfd, struct session_totals *ret)
{
	_cleanup_free_ char *text = NULL;
	int r = read_ledger(dfd, &text);

	*ret = (struct session_totals){};
	if (r < 0)
		return r;
	return session_calls_parse(text, add_call, ret);
}

struct report_ctx {
	int dfd;
	FILE *out;
	bool json;
	struct session_totals t;
};

static void
human_duration(uint64_t ms, char *buf, size_t len)
{
	format_duration_ms(ms, buf, len);
}

static int
print_call(const struct session_call *c, void *ud)
{
	struct report_ctx *x = ud;
	char wall[32], cpu[32], ex[16] = "-", name[32];
	_cleanup_free_ char *rep = NULL;
	size_t len;

	add_call(c, &x->t);
	if (c->exit_code >= 0)
		snprintf(ex, sizeof(ex), "%d", c->exit_code);
	if (!x->json) {
		human_duration(c->wall_ms, wall, sizeof(wall));
		human_duration(c->cpu_ms, cpu, sizeof(cpu));
		fprintf(x->out, "  %3u  %-20s %-10s exit %-4s wall %-8s cpu %s\n", c->n, c->id,
			c->verdict, ex, wall, cpu);
		return 0;
	}
	fprintf(x->out, "%s{\"n\": %u, \"id\": ", x->t.calls > 1 ? ", " : "", c->n);
	json_write_string(x->out, c->id, strlen(c->id));
	fprintf(x->out, ", \"verdict\": ");
	json_write_string(x->out, c->verdict, strlen(c->verdict));
	fprintf(x->out, ", \"exit_code\": %s, \"wall_ms\": %llu, \"cpu_ms\": %llu, \"report\": ",
		ex[0] == '-' ? "null" : ex, (unsigned long long) c->wall_ms,
		(unsigned long long) c->cpu_ms);
	/* The call's own report, as sandcap wrote it (JSON), or null if it is unreadable. */
	snprintf(name, sizeof(name), "call-%u.json", c->n);
	rep = malloc(CALL_REPORT_MAX);
	if (rep != NULL && read_full_at(x->dfd, name, rep, CALL_REPORT_MAX, &len) == 0 && len > 0 &&
	    rep[0] == '{') {
		while (len > 0 && rep[len - 1] == '\n')
			rep[--len] = '\0';
		fputs(rep, x->out);
	} else {
		fputs("null", x->out);
	}
	fputs("}", x->out);
	return 0;
}

static void
json_limits(FILE *f, const struct session_state *s)
{
	fprintf(f,
		"\"limits\": {\"ttl_ms\": %llu, \"cpu_budget_ms\": %llu, \"timeout_ms\": %llu, "
		"\"as\": %llu}",
		(unsigned long long) s->ttl_ms, (unsigned long long) s->cpu_budget_ms,
		(unsigned long long) s->timeout_ms, (unsigned long long) s->as);
}

static void
json_head(FILE *f, const struct session_state *s, const char *ended)
{
	uint64_t now = session_now_ms();

	fprintf(f, "{\"sandcap_session\": 1, \"id\": \"%s\", \"name\": ", s->id);
	if (s->name[0] != '\0')
		json_write_string(f, s->name, strlen(s->name));
	else
		fputs("null", f);
	fprintf(f, ", \"mode\": \"%s\", \"created\": %llu, \"ended\": ", s->mode,
		(unsigned long long) s->created_s);
	if (ended != NULL)
		fprintf(f, "\"%s\"", ended);
	else
		fputs("null", f);
	char ws[PATH_MAX];

	fprintf(f, ", \"ttl_left_ms\": %llu, \"workspace\": ",
		(unsigned long long) (s->expires_ms > now ? s->expires_ms - now : 0));
	if (session_workspace_path(s->id, ws, sizeof(ws)) == 0)
		json_write_string(f, ws, strlen(ws));
	else
		fputs("null", f);
	fputs(", ", f);
	json_limits(f, s);
}

static void
human_head(FILE *f, const struct session_state *s, const char *ended)
{
	char ttl[32], budget[32];
	uint64_t now = session_now_ms();

	human_duration(s->expires_ms > now ? s->expires_ms - now : 0, ttl, sizeof(ttl));
	fprintf(f, "session %s%s%s%s: %s\n", s->id, s->name[0] ? " (" : "", s->name,
		s->name[0] ? ")" : "",
		ended == NULL         ? "running"
		: streq(ended, "ttl") ? "ended at its TTL"
				      : "ended");
	if (ended == NULL)
		fprintf(f, "TTL left: %s\n", ttl);
	if (s->cpu_budget_ms) {
		human_duration(s->cpu_budget_ms, budget, sizeof(budget));
		fprintf(f, "CPU-time budget: %s\n", budget);
	}
}

int
session_report(int dfd, const struct session_state *s, const char *ended, FILE *out, bool json)
{
	_cleanup_free_ char *text = NULL;
	struct report_ctx x = { .dfd = dfd, .out = out, .json = json };
	char wall[32], cpu[32];
	uint64_t left;
	int r = read_ledger(dfd, &text);

	if (r < 0)
		return r;
	if (json)
		json_head(out, s, ended);
	else
		human_head(out, s, ended);
	if (session_is_usercg(s))
		session_usercg_report(dfd, s, out, json);
	fputs(json ? ", \"calls\": [" : "calls:\n", out);
	r = session_calls_parse(text, print_call, &x);
	left = s->cpu_budget_ms > x.t.cpu_ms ? s->cpu_budget_ms - x.t.cpu_ms : 0;
	if (json) {
		fprintf(out,
			"], \"totals\": {\"calls\": %u, \"wall_ms\": %llu, \"cpu_ms\": %llu, "
			"\"cpu_left_ms\": ",
			x.t.calls, (unsigned long long) x.t.wall_ms,
			(unsigned long long) x.t.cpu_ms);
		if (s->cpu_budget_ms)
			fprintf(out, "%llu}", (unsigned long long) left);
		else
			fputs("null}", out);
		sesscg_report(dfd, out, true);
		fputs("}\n", out);
		return r;
	}
	human_duration(x.t.wall_ms, wall, sizeof(wall));
	human_duration(x.t.cpu_ms, cpu, sizeof(cpu));
	fprintf(out, "totals: %u call%s, wall %s, CPU %s", x.t.calls, x.t.calls == 1 ? "" : "s",
		wall, cpu);
	if (s->cpu_budget_ms) {
		human_duration(left, wall, sizeof(wall));
		fprintf(out, " (%s of the budget left)", wall);
	}
	fputs("\n", out);
	sesscg_report(dfd, out, false);
	return r;
}

int
session_show(const char *id, FILE *out, bool json, char *err, size_t errlen)
{
	_cleanup_close_ int rootfd = -EBADF, dfd = -EBADF;
	struct session_state s = {};
	int r = session_root(false, &rootfd, err, errlen);

	if (r == 0)
		r = session_open(rootfd, id, &dfd, &s, err, errlen);
	if (r == -ENOENT)
		return 1;
	if (r < 0)
		return r;
	r = session_report(dfd, &s, NULL, out, json);
	if (r < 0)
		snprintf(err, errlen, "session %s: its ledger is unreadable", id);
	return r;
}

static void
list_one(FILE *out, bool json, bool *first, const struct session_state *s, int dfd)
{
	struct session_totals t;
	uint64_t now = session_now_ms(), left = s->expires_ms > now ? s->expires_ms - now : 0;
	char ttl[32], cpu[32];

	(void) session_totals_read(dfd, &t);
	if (json) {
		fprintf(out, "%s{\"id\": \"%s\", \"name\": ", *first ? "" : ", ", s->id);
		if (s->name[0] != '\0')
			json_write_string(out, s->name, strlen(s->name));
		else
			fputs("null", out);
		fprintf(out,
			", \"mode\": \"%s\", \"ttl_left_ms\": %llu, \"calls\": %u, "
			"\"cpu_ms\": %llu}",
			s->mode, (unsigned long long) left, t.calls, (unsigned long long) t.cpu_ms);
	} else {
		human_duration(left, ttl, sizeof(ttl));
		human_duration(t.cpu_ms, cpu, sizeof(cpu));
		fprintf(out, "%-12s  %-16s %-7s %-10s %5u  %s\n", s->id, s->name[0] ? s->name : "-",
			s->mode, ttl, t.calls, cpu);
	}
	*first = false;
}

/* Is there a valid state in dfd? */
static bool
has_state(int dfd, const char *id)
{
	struct session_state s;
	char buf[SESSION_STATE_MAX];
	size_t len;

	return read_full_at(dfd, "state", buf, sizeof(buf), &len) == 0 &&
	       session_state_parse(buf, &s) == 0 && streq(s.id, id);
}

/* Is name in dfd a lock nobody holds (or no file)? */
static bool
lock_free(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool r;

	if (fd < 0)
		return errno == ENOENT;
	r = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return r;
}

/* A directory in the sessions root with no valid state: a start or an end cut short.
 * Removed when nothing holds it: no start (the root's flock, which start holds shared
 * until its state is written), no teardown (the directory's flock), no keeper, no call.
 * 1: removed, 0: left alone, -errno: the removal failed. */
static int
reap_stateless(int rootfd, const char *id)
{
	_cleanup_close_ int rl = -EBADF, dfd = -EBADF;

	if (!session_id_valid(id))
		return 0;
	rl = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rl < 0 || flock(rl, LOCK_EX | LOCK_NB) < 0)
		return 0; /* a start is making its directory */
	dfd = session_private_dir(rootfd, id, false);
	if (dfd < 0 || has_state(dfd, id) || flock(dfd, LOCK_EX | LOCK_NB) < 0 ||
	    !lock_free(dfd, "keeper") || !lock_free(dfd, "lock"))
		return 0;
	return session_remove(rootfd, dfd, id) == 0 ? 1 : -EBUSY;
}

/* An expired session whose keeper is gone (killed): nobody else will remove it. */
static bool
reap_expired(int rootfd, int dfd, const struct session_state *s)
{
	char err[256];

	if (session_now_ms() < s->expires_ms || !session_keeper_gone(dfd))
		return false;
	(void) session_teardown(rootfd, dfd, s, "ttl", NULL, true, false, err, sizeof(err));
	return true;
}

int
session_list(FILE *out, bool json, char *err, size_t errlen)
{
	_cleanup_close_ int rootfd = -EBADF;
	struct dir_iter *it;
	unsigned char type;
	bool first = true;
	const char *e;
	int r = session_root(false, &rootfd, err, errlen);

	if (r == -ENOENT) {
		fputs(json ? "[]\n" : "", out);
		return 0;
	}
	if (r < 0)
		return r;
	it = calloc(1, sizeof(*it));
	if (it == NULL)
		return -ENOMEM;
	it->fd = rootfd;
	if (json)
		fputs("[", out);
	else
		fprintf(out, "%-12s  %-16s %-7s %-10s %5s  %s\n", "ID", "NAME", "MODE", "TTL LEFT",
			"CALLS", "CPU");
	while ((e = dir_next(it, &type)) != NULL) {
		struct session_state s = {};
		char e2[128];
		int dfd;

		if (session_open(rootfd, e, &dfd, &s, e2, sizeof(e2)) < 0) {
			r = reap_stateless(rootfd, e);
			if (r != 0)
				fprintf(stderr,
					"sandcap: session ls: %s %s, a session's directory with no "
					"valid state (its start or end was cut short)%s\n",
					r > 0 ? "removed" : "cannot remove", e,
					r > 0 ? "" : ": remove it by hand");
			continue;
		}
		if (!reap_expired(rootfd, dfd, &s))
			list_one(out, json, &first, &s, dfd);
		close(dfd);
	}
	free(it);
	if (json)
		fputs("]\n", out);
	return 0;
}
