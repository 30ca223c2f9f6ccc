/* SPDX-License-Identifier: MIT */
/* The egress proxy of --net proxy: one process sandcap forks before the sandbox, outside
 * it, as the user, on 127.0.0.1 and an ephemeral port; HTTP (CONNECT and absolute-URI) and
 * SOCKS5 with names, for its own sandbox only (peer uid and cgroup, per-run secret).  Each
 * authenticated attempt becomes a record for the report's network object.  See
 * docs/isolation.md and SECURITY.md. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net/allow.h"

#define NET_CONNS_MAX      256 /* records kept for the report; the rest are counted */
#define NET_REASON_MAX     160
#define NET_CONCURRENT_MAX 64 /* connections handled at once (at most) */
#define PROXY_SECRET_BYTES 16 /* from getrandom(), written as hex */

struct net_conn {
	bool denied;
	char host[ALLOW_NAME_MAX + 1]; /* normalised, or escaped as received when invalid */
	uint16_t port;
	char address[INET6_ADDRSTRLEN]; /* "" when no connection was made */
	char reason[NET_REASON_MAX];
	uint64_t bytes_out, bytes_in; /* client -> server, server -> client */
};

struct net_proxy {
	pid_t pid; /* 0 = not running (not our child: see pidfd) */
	int pidfd; /* the proxy, to kill it if it does not finish */
	uint16_t port;
	int stop_fd;   /* write end: closing it ends the proxy */
	int result_fd; /* read end: the records, once stopped */
	size_t n_conn;
	uint64_t omitted; /* attempts beyond NET_CONNS_MAX */
	uint64_t denied;  /* all denied attempts, omitted ones included */
	bool collected;
	bool peer_cgroup; /* sock_diag reports a peer's cgroup id (Linux 5.7+) */
	size_t max_conn;  /* connections at once, for the report */
	char secret[2 * PROXY_SECRET_BYTES + 1]; /* the proxy URL's password */
	char authentication[128];                /* how peers are known, for the report */
	/* Last: read only below n_conn, so a run without a proxy touches only the fields
	 * above (perf: a run without a proxy does not zero it). */
	struct net_conn conn[NET_CONNS_MAX];
};

/* Fork the proxy with the allow-list l.  Returns 0 with p->port set, or -errno with err. */
int net_proxy_start(struct net_proxy *p, const struct allow_list *l, char *err, size_t errlen);

/* Tell the proxy whom to serve, once the run's mode is known: the sandbox's uid (sandcap's)
 * and, when cgroup_fd is the sandbox's cgroup (>= 0), its cgroup id.  Until then it
 * accepts no connection.  Warns when the kernel cannot report cgroup ids.  0 or -errno. */
int net_proxy_authorize(struct net_proxy *p, int cgroup_fd);

/* Stop the proxy, wait (at most a few seconds) for its records, reap it.  Idempotent. */
int net_proxy_finish(struct net_proxy *p);

/* Parse one record line (pure; tests/unit).  "A|D\tHOST\tPORT\tADDR\tOUT\tIN\tREASON". */
int net_record_parse(const char *line, size_t len, struct net_conn *ret);
/* Format one record line into buf (<= PIPE_BUF), with tabs and control bytes escaped. */
size_t net_record_format(const struct net_conn *c, char *buf, size_t len);
