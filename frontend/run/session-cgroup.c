/* SPDX-License-Identifier: MIT */
/* Sessions in cgroup mode: the keeper's side (the level, its counters, the CPU-time budget)
 * and what calls and reports read back (session-cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"
#include "run/session-cgroup.h"
#include "run/session-io.h"
#include "run/session-level.h"
#include "wire.h"

bool
sesscg_is(const struct session_state *s)
{
	return streq(s->mode, "cgroup");
}

/* One "key=value" line of ours into g; -EINVAL for any other. */
static int
parse_line(const char *k, size_t klen, const char *v, struct sesscg *g)
{
	static const struct {
		const char *key;
		size_t off;
		size_t has; /* offset of its has_ flag, or 0 */
	} nums[] = {
		{ "memory", offsetof(struct sesscg, memory), 0 },
		{ "cpu_percent", offsetof(struct sesscg, cpu_percent), 0 },
		{ "pids", offsetof(struct sesscg, pids), 0 },
		{ "disk", offsetof(struct sesscg, disk), 0 },
		{ "cpu_usec", offsetof(struct sesscg, cpu_usec),
		  offsetof(struct sesscg, has_usage) },
		{ "memory_peak", offsetof(struct sesscg, memory_peak),
		  offsetof(struct sesscg, has_memory_peak) },
		{ "pids_peak", offsetof(struct sesscg, pids_peak),
		  offsetof(struct sesscg, has_pids_peak) },
		{ "oom_kill", offsetof(struct sesscg, oom_kill), 0 },
	};
	uint64_t u;

	if (klen == 5 && strneq(k, "level", 5))
		return strlen(v) < sizeof(g->level) && v[0] != '\0'
			       ? (snprintf(g->level, sizeof(g->level), "%s", v), 0)
			       : -EINVAL;
	if (klen == 9 && strneq(k, "workspace", 9))
		return strlen(v) < sizeof(g->workspace) && v[0] == '/'
			       ? (snprintf(g->workspace, sizeof(g->workspace), "%s", v), 0)
			       : -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(nums); i++) {
		if (strlen(nums[i].key) != klen || !strneq(k, nums[i].key, klen))
			continue;
		if (streq(v, "-"))
			return 0; /* the kernel has no such counter: its has_ stays false */
		if (parse_u64_range(v, 0, UINT64_MAX, &u) < 0)
			return -EINVAL;
		*(uint64_t *) ((char *) g + nums[i].off) = u;
		if (nums[i].has)
			*(bool *) ((char *) g + nums[i].has) = true;
		return 0;
	}
	return -EINVAL;
}

static int
parse_text(const char *text, struct sesscg *g)
{
	char line[SESSION_PATH_MAX + 32];

	while (text != NULL && *text != '\0') {
		size_t n = strcspn(text, "\n");
		const char *eq;

		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, text, n);
		line[n] = '\0';
		text += n + (text[n] == '\n');
		eq = strchr(line, '=');
		if (eq == NULL || parse_line(line, (size_t) (eq - line), eq + 1, g) < 0)
			return -EINVAL;
	}
	return 0;
}

int
sesscg_parse(const char *cgroup, const char *usage, struct sesscg *g)
{
	*g = (struct sesscg){};
	if (parse_text(cgroup, g) < 0 || parse_text(usage, g) < 0)
		return -EINVAL;
	return cgroup != NULL && (g->level[0] == '\0' || g->workspace[0] == '\0') ? -EINVAL : 0;
}

int
sesscg_read(int dfd, struct sesscg *g)
{
	char cg[SESSION_PATH_MAX + 512], use[512];
	size_t n;
	int r = read_full_at(dfd, "cgroup", cg, sizeof(cg), &n);

	if (r < 0)
		return r;
	if (read_full_at(dfd, "usage", use, sizeof(use), &n) < 0)
		use[0] = '\0';
	return sesscg_parse(cg, use, g);
}

int
sesscg_workspace(const char *id, char *buf, size_t len)
{
	_cleanup_close_ int rootfd = -EBADF, dfd = -EBADF;
	struct sesscg g;
	char err[512];

	if (!session_id_valid(id) || session_root(false, &rootfd, err, sizeof(err)) < 0)
		return -ENOENT;
	dfd = session_private_dir(rootfd, id, false);
	if (dfd < 0 || sesscg_read_own(dfd, id, &g, err, sizeof(err)) < 0)
		return -ENOENT;
	return snprintf(buf, len, "%s", g.workspace) < (int) len ? 0 : -ENAMETOOLONG;
}

int
sesscg_keeper_begin(int dfd, const struct session_opts *o, const struct session_state *s,
		    struct sc_session *cs, char *err, size_t errlen)
{
	/* The level runs nothing itself: each call's own CREATE is checked against the
	 * policy's net and fs requirements. */
	const struct sc_request req = {
		.memory = o->memory,
		.cpu_percent = o->cpu_percent,
		.pids = o->pids,
		.disk = o->disk,
		.timeout_ms = s->ttl_ms,
		.net = POLICY_NET_HOST,
		.fs = POLICY_FS_NONE,
		.session_role = WIRE_SESSION_LEVEL,
	};
	const struct sc_request *e = &cs->effective;
	char text[SESSION_PATH_MAX + 512];
	int r, n;

	client_init(cs);
	r = client_open(cs, err, errlen);
	if (r == 0)
		r = client_create(cs, &req, err, errlen);
	if (r < 0) {
		client_close(cs);
		return r;
	}
	n = snprintf(text, sizeof(text),
		     "level=%s\nworkspace=%s\nmemory=%" PRIu64 "\ncpu_percent=%" PRIu64
		     "\npids=%" PRIu64 "\ndisk=%" PRIu64 "\n",
		     cs->id, cs->ws_path, e->memory, e->cpu_percent, e->pids, e->disk);
	r = n < 0 || (size_t) n >= sizeof(text)
		    ? -ENAMETOOLONG
		    : session_write_file(dfd, "cgroup", text, (size_t) n);
	if (r < 0) {
		snprintf(err, errlen, "cannot record the session's cgroup: %s", strerror(-r));
		client_close(cs);
	}
	return r;
}

static bool
populated(int events_fd)
{
	char buf[256];
	ssize_t n = pread(events_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return true; /* cannot tell: keep looking */
	buf[n] = '\0';
	return strstr(buf, "populated 1") != NULL;
}

int
sesscg_keeper_tick(int dfd, const struct session_state *s, struct sc_session *cs, int events_fd)
{
	struct cg_usage u;
	char text[512], peak[32] = "-", pids[32] = "-";
	bool busy = populated(events_fd);
	int n;

	if (cgstats_read(cs->leaf_fd, -EBADF, &u) < 0 || !u.has_cpu_stat)
		return busy ? SESSCG_TICK_MS : -1;
	if (u.has_memory_peak)
		snprintf(peak, sizeof(peak), "%" PRIu64, u.memory_peak);
	if (u.has_pids_peak)
		snprintf(pids, sizeof(pids), "%" PRIu64, u.pids_peak);
	n = snprintf(text, sizeof(text),
		     "cpu_usec=%" PRIu64 "\nmemory_peak=%s\npids_peak=%s\noom_kill=%" PRIu64 "\n",
		     u.cpu_usage_usec, peak, pids, u.oom_kill);
	if (n > 0 && (size_t) n < sizeof(text))
		(void) session_write_file(dfd, "usage", text, (size_t) n);
	/* The budget from the kernel's own count for the whole level, whatever the calls'
	 * sandcap processes did or did not account. */
	if (busy && s->cpu_budget_ms != 0 && u.cpu_usage_usec / 1000 >= s->cpu_budget_ms) {
		char err[256];

		(void) client_kill(cs, err, sizeof(err));
	}
	return busy ? SESSCG_TICK_MS : -1;
}

/* ', "key": v', or null when there is no figure (!has). */
static void
json_opt(FILE *out, const char *key, bool has, uint64_t v)
{
	if (has)
		fprintf(out, ", \"%s\": %" PRIu64, key, v);
	else
		fprintf(out, ", \"%s\": null", key);
}

void
sesscg_report(int dfd, FILE *out, bool json)
{
	struct sesscg g;
	char a[32], b[32];

	if (sesscg_read(dfd, &g) < 0)
		return;
	if (json) {
		fprintf(out,
			", \"cgroup\": {\"level\": \"%s\", \"memory\": %" PRIu64
			", \"cpu_percent\": %" PRIu64 ", \"pids\": %" PRIu64 ", \"disk\": %" PRIu64,
			g.level, g.memory, g.cpu_percent, g.pids, g.disk);
		json_opt(out, "cpu_ms", g.has_usage, g.cpu_usec / 1000);
		json_opt(out, "oom_kill", g.has_usage, g.oom_kill);
		json_opt(out, "memory_peak", g.has_memory_peak, g.memory_peak);
		json_opt(out, "pids_peak", g.has_pids_peak, g.pids_peak);
		fputs("}", out);
		return;
	}
	fprintf(out, "session cgroup %s:", g.level);
	if (!g.has_usage) {
		fputs(" no counters read yet\n", out);
		return;
	}
	format_duration_ms(g.cpu_usec / 1000, a, sizeof(a));
	fprintf(out, " CPU %s", a);
	if (g.has_memory_peak) {
		format_size(g.memory_peak, a, sizeof(a));
		format_size(g.memory, b, sizeof(b));
		fprintf(out, ", memory peak %s%s%s", a, g.memory ? " of " : "", g.memory ? b : "");
	} else {
		fputs(", memory peak: not kept by this kernel (memory.peak, 5.19)", out);
	}
	if (g.has_pids_peak)
		fprintf(out, ", pids peak %" PRIu64, g.pids_peak);
	else
		fputs(", pids peak: not kept by this kernel (pids.peak)", out);
	if (g.oom_kill)
		fprintf(out, ", %" PRIu64 " OOM kill%s", g.oom_kill, g.oom_kill == 1 ? "" : "s");
	fputs("\n", out);
}
