/* SPDX-License-Identifier: MIT */
/* `sandcap run --net ...`: the steps run.c takes for the network (net-run.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "run/args.h"
#include "net/proxy.h"
#include "report/report.h"

/* Before CREATE: start the proxy for --net proxy and set o->iso.proxy_port.  0 or -errno
 * with the message in err. */
int net_run_prepare(struct run_opts *o, struct net_proxy *p, char *err, size_t errlen);

/* Once the mode is known: tell the proxy whom to serve (cgroup_fd: the sandbox's cgroup
 * directory, or -EBADF in rlimit mode).  0 or -errno. */
int net_run_authorize(const struct run_opts *o, struct net_proxy *p, int cgroup_fd);

/* After the isolation plan: the proxy variables for the command (--net proxy only), into
 * *envp when the command has an environment of its own (--env...: env_build()), else into
 * sandcap's.  0 or -errno. */
int net_run_environment(const struct run_opts *o, const struct net_proxy *p, char ***envp);

/* After the sandbox ended: stop the proxy, fill rep->net (mode != host or --net given). */
/* A refusal's report: the network asked for, its enforcement "none: the run was refused",
 * the proxy's rules and an empty list of connections (the command never ran).  The run's
 * own net_run_report() replaces it. */
void net_run_report_refused(const struct run_opts *o, const struct net_proxy *p,
			    struct report *rep);

void net_run_report(const struct run_opts *o, const char *enforcement, struct net_proxy *p,
		    struct report *rep);
