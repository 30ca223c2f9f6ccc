/* SPDX-License-Identifier: MIT */
/* The network steps of `sandcap run`, kept out of run.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervise/env.h"
#include "macro.h"
#include "run/net-run.h"

int
net_run_prepare(struct run_opts *o, struct net_proxy *p, char *err, size_t errlen)
{
	int r;

	/* The proxy's state, not conn[], which is read only below n_conn (perf: a run without
	 * a proxy never faults that large array in). */
	p->pid = 0;
	p->port = 0;
	p->n_conn = 0;
	p->omitted = p->denied = 0;
	p->collected = false;
	p->stop_fd = p->result_fd = p->pidfd = -EBADF;
	if (o->iso.net != POLICY_NET_PROXY)
		return 0;
	if (o->allow.n == 0 && !o->quiet)
		fprintf(stderr,
			"sandcap: warning: --net proxy without --allow: nothing will be "
			"reachable through the proxy; add --allow HOST[:PORT] for each host the "
			"command needs\n");
	r = net_proxy_start(p, &o->allow, err, errlen);
	if (r < 0)
		return r;
	o->iso.proxy_port = p->port;
	return 0;
}

int
net_run_authorize(const struct run_opts *o, struct net_proxy *p, int cgroup_fd)
{
	if (o->iso.net != POLICY_NET_PROXY)
		return 0;
	return net_proxy_authorize(p, cgroup_fd);
}

int
net_run_environment(const struct run_opts *o, const struct net_proxy *p, char ***envp)
{
	static const char *const vars[] = { "HTTP_PROXY",  "http_proxy", "HTTPS_PROXY",
					    "https_proxy", "ALL_PROXY",  "all_proxy",
					    "NO_PROXY",    "no_proxy" };
	/* The entries stay referenced by *envp (env_put()) until the exec. */
	static char entry[ELEMENTSOF(vars)][128];

	if (o->iso.net != POLICY_NET_PROXY)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
		/* Nothing bypasses the proxy: the sandbox could not reach it directly anyway. */
		const char *value = i < 4 ? "http" : i < 6 ? "socks5h" : NULL;

		/* The per-run secret as the URL's credentials: curl, wget, git, pip, Python's
		 * requests and urllib send it (Proxy-Authorization: Basic, or SOCKS5
		 * username/password); nothing else gets through (proxy.c). */
		if (value != NULL)
			(void) snprintf(entry[i], sizeof(entry[i]),
					"%s=%s://sandcap:%s@127.0.0.1:%u", vars[i], value,
					p->secret, (unsigned) p->port);
		else
			(void) snprintf(entry[i], sizeof(entry[i]), "%s=", vars[i]);
		/* sandcap's own variables, not inherited ones: they survive --env-clear and
		 * --env-deny, or the command could not find the proxy it is confined to. */
		if (*envp != NULL) {
			if (env_put(envp, entry[i]) < 0)
				return -ENOMEM;
			continue;
		}
		if (setenv(vars[i], entry[i] + strlen(vars[i]) + 1, 1) < 0)
			return -errno;
	}
	return 0;
}

void
net_run_report_refused(const struct run_opts *o, const struct net_proxy *p, struct report *rep)
{
	if (o->iso.net == POLICY_NET_HOST && !o->has_net)
		return;
	rep->net.mode = policy_net_name(o->iso.net);
	(void) strlcpy(rep->net.enforcement, "none: the run was refused",
		       sizeof(rep->net.enforcement));
	if (o->iso.net == POLICY_NET_PROXY) {
		rep->net.allow = &o->allow;
		rep->net.proxy = p; /* no connection yet: [] */
	}
}

void
net_run_report(const struct run_opts *o, const char *enforcement, struct net_proxy *p,
	       struct report *rep)
{
	if (o->iso.net == POLICY_NET_HOST && !o->has_net)
		return;
	rep->net.mode = policy_net_name(o->iso.net);
	(void) strlcpy(rep->net.enforcement, enforcement, sizeof(rep->net.enforcement));
	if (o->iso.net != POLICY_NET_PROXY)
		return;
	if (net_proxy_finish(p) < 0)
		fprintf(stderr, "sandcap: warning: the proxy did not report its connections in "
				"time; the report's list is incomplete\n");
	rep->net.allow = &o->allow;
	rep->net.proxy = p;
}
