/* SPDX-License-Identifier: MIT */
/* Who is at the other end of a loopback TCP connection: the kernel's sock_diag
 * (NETLINK_SOCK_DIAG, inet_diag) reports the peer socket's owner uid and, since Linux 5.7
 * with CONFIG_SOCK_CGROUP_DATA, the cgroup v2 id of the process that made it.  The egress
 * proxy serves a connection only when both are its sandbox's (proxy.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proxy_peer {
	uid_t uid;
	bool has_cgroup; /* the kernel sent INET_DIAG_CGROUP_ID */
	uint64_t cgroup;
};

/* A NETLINK_SOCK_DIAG socket (close-on-exec), or -errno. */
int proxy_peer_open(void);

/* The peer of the accepted IPv4 socket fd, looked up through nl.  0, or -errno (-ENOENT:
 * the peer socket is gone, or is not a local one). */
int proxy_peer_lookup(int nl, int fd, struct proxy_peer *ret);

/* The cgroup v2 id of the directory fd (the id sock_diag reports), or 0 when unknown. */
uint64_t proxy_cgroup_id(int dirfd);
