/* SPDX-License-Identifier: MIT */
/* The network steps of `sandcap run`, kept out of run.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net-run.h"

int
net_run_prepare(struct run_opts *o, struct net_proxy *p, char *err, size_t errlen)
{
	int r;

	/* Every field but conn[], which is read only below n_conn: zeroing all 120 KiB of it
	 * cost 30 page faults in every run, with or without a proxy (issue 19). */
	p->pid = 0;
	p->port = 0;
	p->n_conn = 0;
	p->omitted = p->denied = 0;
	p->collected = false;
	p->stop_fd = p->result_fd = p->pidfd = -EBADF;
	if (o->iso.net != POLICY_NET_PROXY)
		return 0;
	r = net_proxy_start(p, &o->allow, err, errlen);
	if (r < 0)
		return r;
	o->iso.proxy_port = p->port;
	return 0;
}

int
net_run_environment(const struct run_opts *o, const struct net_proxy *p)
{
	char http[64], socks[64];
	static const char *const http_vars[] = { "HTTP_PROXY", "http_proxy", "HTTPS_PROXY",
						 "https_proxy" };
	static const char *const all_vars[] = { "ALL_PROXY", "all_proxy" };

	if (o->iso.net != POLICY_NET_PROXY)
		return 0;
	(void) snprintf(http, sizeof(http), "http://127.0.0.1:%u", (unsigned) p->port);
	(void) snprintf(socks, sizeof(socks), "socks5h://127.0.0.1:%u", (unsigned) p->port);
	for (size_t i = 0; i < sizeof(http_vars) / sizeof(http_vars[0]); i++)
		if (setenv(http_vars[i], http, 1) < 0)
			return -errno;
	for (size_t i = 0; i < sizeof(all_vars) / sizeof(all_vars[0]); i++)
		if (setenv(all_vars[i], socks, 1) < 0)
			return -errno;
	/* Nothing bypasses the proxy: the sandbox could not reach it directly anyway. */
	if (setenv("NO_PROXY", "", 1) < 0 || setenv("no_proxy", "", 1) < 0)
		return -errno;
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
		rep->net.proxy = p;     /* no connection yet: [] */
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
