/* SPDX-License-Identifier: MIT */
/* The JSON report and the two stderr lines of one `sandcap run` (report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/json.h"
#include "macro.h"
#include "parse-util.h"
#include "report/report.h"

void
report_add_limit(struct report *r, const char *key, uint64_t value)
{
	if (r->n_limits >= REPORT_ITEMS_MAX)
		return;
	r->limits[r->n_limits].key = key;
	r->limits[r->n_limits].value = value;
	r->n_limits++;
}

void
report_add_enforcement(struct report *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->n_enforcement >= REPORT_ITEMS_MAX)
		return;
	r->enforcement[r->n_enforcement].key = key;
	va_start(ap, fmt);
	(void) vsnprintf(r->enforcement[r->n_enforcement].value,
			 sizeof(r->enforcement[r->n_enforcement].value), fmt, ap);
	va_end(ap);
	r->n_enforcement++;
}

/* "env": the names of the variables the command got, never their values. */
static void
write_env_names(struct json *j, const struct report *r)
{
	char name[256];
	bool tmpdir = false;

	json_key(j, "env");
	json_array_begin(j);
	for (char *const *e = r->env; e != NULL && *e != NULL; e++) {
		size_t n = strcspn(*e, "=");

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, *e, n);
		name[n] = '\0';
		tmpdir |= streq(name, "TMPDIR");
		json_string(j, name);
	}
	if (r->tmpdir_set && !tmpdir)
		json_string(j, "TMPDIR");
	json_array_end(j);
}

static void
write_network(struct json *j, const struct report_network *n)
{
	const struct net_proxy *p = n->proxy;

	json_key(j, "network");
	json_object_begin(j);
	json_key_string(j, "mode", n->mode);
	json_key_string(j, "enforcement", n->enforcement);
	if (n->allow != NULL) {
		json_key(j, "allow");
		json_array_begin(j);
		for (size_t i = 0; i < n->allow->n; i++)
			json_string(j, n->allow->rule[i].text);
		json_array_end(j);
	}
	if (p != NULL) {
		json_key(j, "connections");
		json_array_begin(j);
		for (size_t i = 0; i < p->n_conn; i++) {
			const struct net_conn *c = &p->conn[i];

			json_object_begin(j);
			json_key_string(j, "host", c->host);
			json_key_uint(j, "port", c->port);
			json_key_string(j, "address", c->address[0] != '\0' ? c->address : NULL);
			json_key_string(j, "decision", c->denied ? "denied" : "allowed");
			json_key_string(j, "reason", c->reason);
			json_key_uint(j, "bytes_out", c->bytes_out);
			json_key_uint(j, "bytes_in", c->bytes_in);
			json_object_end(j);
		}
		json_array_end(j);
		json_key_uint(j, "connections_omitted", p->omitted);
		json_key_uint(j, "max_connections", p->max_conn);
		json_key_string(j, "authentication", p->authentication);
	}
	json_object_end(j);
}

static void
write_oom_at(struct json *j, const struct report_oom_at *o)
{
	json_key(j, "oom_at");
	json_object_begin(j);
	json_key(j, "limit");
	json_string(j, o->limit);
	json_key(j, "cgroup");
	json_string(j, o->cgroup);
	/* "max" is no number: null, as for a file the kernel does not have. */
	json_key_opt_uint(j, "memory_max", o->has_memory_max && o->memory_max != UINT64_MAX,
			  o->memory_max);
	json_key(j, "oom");
	json_uint(j, o->oom);
	json_key_opt_uint(j, "oom_kill", o->has_oom_kill, o->oom_kill);
	json_key(j, "read_by");
	json_string(j, o->read_by);
	json_object_end(j);
}

int
report_write_json(FILE *f, const struct report *r)
{
	const struct cg_usage *c = &r->cg;
	struct json j;

	json_init(&j, f);
	json_object_begin(&j);
	json_key_uint(&j, "sandcap_report", 1);
	json_key_string(&j, "version", r->version);
	json_key_string(&j, "mode", r->mode);
	json_key_string(&j, "id", r->id);
	json_key(&j, "command");
	json_array_begin(&j);
	for (char *const *a = r->argv; a != NULL && *a != NULL; a++)
		json_string(&j, *a);
	json_array_end(&j);
	json_key_string(&j, "verdict", verdict_name(r->v.kind));
	json_key(&j, "limits_hit");
	json_array_begin(&j);
	for (unsigned k = 0; k < _VERDICT_MAX; k++)
		if (r->v.limits_hit & (1u << k))
			json_string(&j, verdict_name((enum verdict_kind) k));
	json_array_end(&j);
	json_key_opt_uint(&j, "exit_code", r->v.exit_code >= 0, (uint64_t) r->v.exit_code);
	json_key_opt_uint(&j, "signal", r->v.signal > 0, (uint64_t) r->v.signal);
	json_key_uint(&j, "sandcap_exit", (uint64_t) r->v.sc_exit);
	json_key_string(&j, "message", r->message != NULL ? r->message : "");
	json_key(&j, "limits");
	json_object_begin(&j);
	for (size_t i = 0; i < r->n_limits; i++)
		json_key_uint(&j, r->limits[i].key, r->limits[i].value);
	json_object_end(&j);
	json_key(&j, "enforcement");
	json_object_begin(&j);
	for (size_t i = 0; i < r->n_enforcement; i++)
		json_key_string(&j, r->enforcement[i].key, r->enforcement[i].value);
	json_object_end(&j);
	if (r->net.mode != NULL)
		write_network(&j, &r->net);
	json_key(&j, "usage");
	json_object_begin(&j);
	json_key_uint(&j, "wall_ms", r->wall_ms);
	json_key_uint(&j, "cpu_user_ms", r->cpu_user_ms);
	json_key_uint(&j, "cpu_system_ms", r->cpu_system_ms);
	json_key_opt_uint(&j, "max_rss", r->has_max_rss, r->max_rss);
	json_key_opt_uint(&j, "memory_peak", c->has_memory_peak, c->memory_peak);
	json_key_opt_uint(&j, "pids_peak", c->has_pids_peak, c->pids_peak);
	json_key_opt_uint(&j, "disk_used", c->has_disk_used, c->disk_used);
	json_key_opt_uint(&j, "oom_kills", c->has_memory_events, c->oom_kill);
	json_key_opt_uint(&j, "cpu_throttled_ms", c->has_cpu_throttled,
			  c->cpu_throttled_usec / 1000);
	json_key_opt_uint(&j, "output_bytes", r->has_output_bytes, r->output_bytes);
	json_key_opt_uint(&j, "output_dropped", r->has_output_bytes, r->output_dropped);
	json_key_uint(&j, "killed_at_end", r->killed_at_end);
	json_key_opt_uint(&j, "unix_refused", r->has_unix_refused, r->unix_refused);
	json_object_end(&j);
	write_env_names(&j, r);
	json_key(&j, "killed_by");
	if (r->killed_by.set) {
		json_object_begin(&j);
		json_key_string(&j, "by", r->killed_by.by);
		json_key_uint(&j, "signal", (uint64_t) r->killed_by.signal);
		json_key_uint(&j, "pid", (uint64_t) r->killed_by.pid);
		json_key_uint(&j, "uid", (uint64_t) r->killed_by.uid);
		json_object_end(&j);
	} else {
		json_null(&j);
	}
	if (r->oom_at.limit != NULL)
		write_oom_at(&j, &r->oom_at);
	json_object_end(&j);
	(void) fputc('\n', f);
	return json_finish(&j);
}

void
report_write_summary(FILE *f, const struct report *r)
{
	char rss[32] = "unknown";

	if (r->has_max_rss)
		format_size(r->max_rss, rss, sizeof(rss));
	fprintf(f, "sandcap: %s: %s; exit %d\n", verdict_name(r->v.kind),
		r->message != NULL ? r->message : "", r->v.sc_exit);
	fprintf(f, "sandcap: usage: wall %.2fs, cpu %.2fs user %.2fs sys, peak rss %s\n",
		(double) r->wall_ms / 1000.0, (double) r->cpu_user_ms / 1000.0,
		(double) r->cpu_system_ms / 1000.0, rss);
	if (r->net.proxy != NULL) {
		const struct net_proxy *p = r->net.proxy;
		uint64_t total = p->n_conn + p->omitted, failed = 0;

		/* Allowed, but no connection was made (cannot resolve, connect refused): of the
		 * listed attempts (those beyond NET_CONNS_MAX are counted as omitted only). */
		for (size_t i = 0; i < p->n_conn; i++)
			failed += !p->conn[i].denied && p->conn[i].address[0] == '\0';
		fprintf(f, "sandcap: network: %" PRIu64 " allowed, %" PRIu64 " denied by the proxy",
			total - p->denied, p->denied);
		if (failed > 0)
			fprintf(f, " (%" PRIu64 " allowed but failed to connect)", failed);
		(void) fputc('\n', f);
	}
}
