/* SPDX-License-Identifier: MIT */
/* `sandcap ps [--json]`: the caller's running sandboxes, asked through their control sockets
 * (control.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "supervise/control.h"
#include "macro.h"
#include "parse-util.h"

/* Minimal extraction of a top-level field from our own status JSON (flat, known format). */
static void
jfield(const char *json, const char *key, char *out, size_t outlen)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	out[0] = '\0';
	if (p == NULL)
		return;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p == '"') {
		size_t o = 0;

		/* A string: \" and \\ unescaped (the command line holds quotes); any other
		 * escape is kept as it is written. */
		for (p++; *p != '\0' && *p != '"' && o + 1 < outlen; p++) {
			if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
				p++;
			else if (*p == '\\' && p[1] != '\0')
				out[o++] = *p++;
			if (o + 1 < outlen)
				out[o++] = *p;
		}
		out[o] = '\0';
		return;
	}
	for (e = p; *e != '\0' && *e != ',' && *e != '}'; e++)
		;
	snprintf(out, outlen, "%.*s", (int) (e - p), p);
}

struct ps_ctx {
	bool json, first;
	unsigned n;
};

/* A status field for people: "-" when it was not measured (null), sizes as "12.5 MiB",
 * CPU milliseconds as seconds. */
static void
human(const char *raw, bool size, char *out, size_t outlen)
{
	char *end;
	unsigned long long v;

	if (raw[0] == '\0' || streq(raw, "null")) {
		snprintf(out, outlen, "-");
		return;
	}
	errno = 0;
	v = strtoull(raw, &end, 10);
	if (errno != 0 || *end != '\0' || raw[0] == '-') {
		snprintf(out, outlen, "?");
		return;
	}
	if (size)
		format_size(v, out, outlen);
	else
		snprintf(out, outlen, "%.2fs", (double) v / 1000.0);
}

static int
ps_print(const char *id, const char *status, void *ud)
{
	struct ps_ctx *c = ud;
	char cmd[256], age[32], mem[32], peak[32], cpu[32], pids[32], disk[32], mode[16], raw[32];

	c->n++;
	if (c->json) {
		printf("%s%s", c->first ? "" : ",\n", status);
		c->first = false;
		return 0;
	}
	jfield(status, "command_line", cmd, sizeof(cmd));
	jfield(status, "age_ms", age, sizeof(age));
	jfield(status, "memory_current", raw, sizeof(raw));
	human(raw, true, mem, sizeof(mem));
	jfield(status, "memory_peak", raw, sizeof(raw));
	human(raw, true, peak, sizeof(peak));
	jfield(status, "cpu_ms", raw, sizeof(raw));
	human(raw, false, cpu, sizeof(cpu));
	jfield(status, "pids_current", pids, sizeof(pids));
	if (streq(pids, "null") || pids[0] == '\0')
		snprintf(pids, sizeof(pids), "-");
	jfield(status, "disk_used", raw, sizeof(raw));
	human(raw, true, disk, sizeof(disk));
	jfield(status, "mode", mode, sizeof(mode));
	printf("%-24s %-6s %8.1fs %10s %10s %8s %5s %10s  %s\n", id, mode, atof(age) / 1000.0, mem,
	       peak, cpu, pids, disk, cmd);
	return 0;
}

int
cmd_ps(int argc, char **argv)
{
	struct ps_ctx c = { .first = true };
	int r;

	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--json")) {
			c.json = true;
		} else if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
			printf("Usage: sandcap ps [--json]\n\nList your running sandboxes: id, mode, age, "
			       "memory (current, peak), CPU time, pids, workspace used, command (quoted "
			       "as a shell reads it); '-' where it is not measured.  Without a "
			       "cgroup (rlimit mode) memory, CPU and pids are summed from /proc over "
			       "the sandbox's processes (MEM counts shared pages in each; no peak).  "
			       "--json gives the raw figures (bytes, ms, null).  Other users' sandboxes are never shown.\n");
			return 0;
		} else {
			fprintf(stderr,
				"sandcap: ps: unknown option '%s' (see sandcap ps --help)\n",
				argv[i]);
			return SC_EXIT_FAILURE;
		}
	}
	if (c.json)
		printf("[");
	else
		printf("%-24s %-6s %9s %10s %10s %8s %5s %10s  %s\n", "ID", "MODE", "AGE", "MEM",
		       "MEMPEAK", "CPU", "PIDS", "DISK", "COMMAND");
	r = control_for_each_sandbox(ps_print, &c);
	if (r < 0) {
		fprintf(stderr, "sandcap: ps: cannot read the run directory: %s%s\n", strerror(-r),
			r == -EPERM ? " (it must be yours and not open to others: mode 0700)" : "");
		return SC_EXIT_FAILURE;
	}
	if (c.json)
		printf("]\n");
	return 0;
}
