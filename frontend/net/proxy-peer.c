/* SPDX-License-Identifier: MIT */
/* The peer lookup of the egress proxy (proxy-peer.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/proxy-peer.h"

#ifndef INET_DIAG_CGROUP_ID
#define INET_DIAG_CGROUP_ID 21 /* Linux 5.7 */
#endif

int
proxy_peer_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	return fd < 0 ? -errno : fd;
}

/* The reply to one exact lookup: an inet_diag_msg and its attributes, or an error. */
static int
parse_reply(const uint8_t *buf, size_t n, uint32_t seq, struct proxy_peer *ret)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *) buf;
	const struct inet_diag_msg *m;
	const struct rtattr *a;
	size_t left;

	if (n < sizeof(*h) || h->nlmsg_len < sizeof(*h) || h->nlmsg_len > n || h->nlmsg_seq != seq)
		return -EPROTO;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EPROTO;
		return e->error < 0 ? e->error : -EPROTO;
	}
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -EPROTO;
	m = NLMSG_DATA(h);
	*ret = (struct proxy_peer){ .uid = m->idiag_uid };
	left = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	for (a = (const struct rtattr *) (m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left))
		if (a->rta_type == INET_DIAG_CGROUP_ID && RTA_PAYLOAD(a) == sizeof(uint64_t)) {
			memcpy(&ret->cgroup, RTA_DATA(a), sizeof(uint64_t));
			ret->has_cgroup = true;
		}
	return 0;
}

int
proxy_peer_lookup(int nl, int fd, struct proxy_peer *ret)
{
	static uint32_t seq;
	struct sockaddr_in me = { 0 }, peer = { 0 };
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = { 0 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint8_t buf[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t got;

	if (getsockname(fd, (struct sockaddr *) &me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *) &peer, &pl) < 0)
		return -errno;
	if (me.sin_family != AF_INET || peer.sin_family != AF_INET)
		return -EAFNOSUPPORT;
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	req.nlh.nlmsg_seq = ++seq;
	req.r.sdiag_family = AF_INET;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	/* The peer's socket: its local end is our remote one. */
	req.r.id.idiag_sport = peer.sin_port;
	req.r.id.idiag_dport = me.sin_port;
	req.r.id.idiag_src[0] = peer.sin_addr.s_addr;
	req.r.id.idiag_dst[0] = me.sin_addr.s_addr;
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (sendto(nl, &req, sizeof(req), 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0)
		return -errno;
	/* The kernel answers while sendto() runs: the reply is queued already. */
	do
		got = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	return parse_reply(buf, (size_t) got, seq, ret);
}

uint64_t
proxy_cgroup_id(int dirfd)
{
	union {
		struct file_handle fh;
		uint8_t raw[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	uint64_t id;
	int mnt;

	/* The handle of a cgroup v2 directory is its id (what systemd's cg_path_get_cgroupid
	 * reads); the inode number is the same on 64-bit kernels. */
	if (name_to_handle_at(dirfd, "", &h.fh, &mnt, AT_EMPTY_PATH) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	return fstat(dirfd, &st) == 0 ? (uint64_t) st.st_ino : 0;
}
