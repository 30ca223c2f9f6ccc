/* SPDX-License-Identifier: MIT */
/* Which UNIX socket a connect() would reach, without connecting; see unixdiag.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#include "macro.h"
#include "supervise/unixdiag.h"

/* Large enough for any datagram of a dump: the kernel fills one of at most 32 KiB (or the
 * reader's buffer size if smaller), and a cut one is an error here (MSG_TRUNC). */
#define UDIAG_BUF (64 * 1024)
/* The kernel's socket states (the TCP numbering, include/net/tcp_states.h). */
#define UDIAG_ESTABLISHED 1

uint32_t
udiag_dev(dev_t st_dev)
{
	/* The kernel's dev_t: 12 bits of major above 20 bits of minor. */
	return ((uint32_t) major(st_dev) << 20) | ((uint32_t) minor(st_dev) & 0xfffffu);
}

int
udiag_mountinfo_line(const char *line, size_t len, uint64_t mnt_id, uint32_t *ret_dev)
{
	/* "ID PARENT MAJOR:MINOR ROOT MOUNTPOINT ...": only the first three fields matter. */
	static const char after[4] = { ' ', ' ', ':', ' ' };
	uint64_t v[4] = { 0 };
	size_t i = 0;

	for (unsigned f = 0; f < 4; f++) {
		size_t start = i;

		for (; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
			if (v[f] > (UINT64_MAX - 9) / 10)
				return 0;
			v[f] = v[f] * 10 + (uint64_t) (line[i] - '0');
		}
		if (i == start || i >= len || line[i] != after[f])
			return 0;
		i++;
	}
	if (v[0] != mnt_id || v[2] > 0xfff || v[3] > 0xfffff)
		return 0;
	*ret_dev = (uint32_t) (v[2] << 20) | (uint32_t) v[3];
	return 1;
}

int
udiag_fd_fsdev(int fd, uint32_t *ret_dev)
{
	struct statx stx;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int r = -ENOENT;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) < 0)
		return -errno;
	if ((stx.stx_mask & STATX_MNT_ID) == 0)
		return -EOPNOTSUPP; /* before Linux 5.8 */
	f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -errno;
	while (r == -ENOENT && (n = getline(&line, &cap, f)) > 0)
		if (udiag_mountinfo_line(line, (size_t) n, stx.stx_mnt_id, ret_dev) == 1)
			r = 0;
	(void) fclose(f);
	return r;
}

static size_t
build(uint32_t show, uint32_t states, uint32_t seq, void *buf)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} r;

	_Static_assert(sizeof(r) <= UDIAG_REQ_SIZE, "UDIAG_REQ_SIZE");
	memset(&r, 0, sizeof(r));
	r.nlh.nlmsg_len = sizeof(r);
	r.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	r.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	r.nlh.nlmsg_seq = seq;
	r.req.sdiag_family = AF_UNIX;
	r.req.udiag_states = states;
	r.req.udiag_show = show;
	memcpy(buf, &r, sizeof(r));
	return sizeof(r);
}

size_t
udiag_request(const struct udiag_key *key, uint32_t seq, void *buf)
{
	/* Every state but connected: a socket bound to the key but not listening (yet) makes
	 * it ambiguous just as a second listener would.  A connected one never listens: the
	 * listener's accepted sockets (which carry its name and file) and a client bound
	 * before it connected. */
	return build(key->abstract ? UDIAG_SHOW_NAME : UDIAG_SHOW_VFS,
		     ~(UINT32_C(1) << UDIAG_ESTABLISHED), seq, buf);
}

/* Whether the attributes (len bytes at a) bind the socket to key. */
static bool
attrs_match(const unsigned char *a, size_t len, const struct udiag_key *key)
{
	while (len >= sizeof(struct nlattr)) {
		struct nlattr na;
		size_t alen, step;

		memcpy(&na, a, sizeof(na));
		alen = na.nla_len;
		if (alen < sizeof(na) || alen > len)
			return false;
		const unsigned char *p = a + NLA_HDRLEN;
		size_t plen = alen - NLA_HDRLEN;

		if (key->abstract && na.nla_type == UNIX_DIAG_NAME)
			return plen == key->name_len && plen > 0 && p[0] == '\0' &&
			       memcmp(p, key->name, plen) == 0;
		if (!key->abstract && na.nla_type == UNIX_DIAG_VFS) {
			struct unix_diag_vfs v;

			if (plen < sizeof(v))
				return false;
			memcpy(&v, p, sizeof(v));
			return v.udiag_vfs_ino == key->vfs_ino && v.udiag_vfs_dev == key->vfs_dev;
		}
		step = NLA_ALIGN(alen);
		if (step >= len)
			break;
		a += step;
		len -= step;
	}
	return false;
}

int
udiag_parse(const void *buf, size_t len, uint32_t seq, const struct udiag_key *key,
	    struct udiag_match *m)
{
	const unsigned char *b = buf;

	while (len > 0) {
		struct nlmsghdr h;
		size_t mlen, step;

		if (len < sizeof(h))
			return -EBADMSG;
		memcpy(&h, b, sizeof(h));
		mlen = h.nlmsg_len;
		if (mlen < sizeof(h) || mlen > len)
			return -EBADMSG;
		if (h.nlmsg_seq != seq)
			return -EBADMSG;
		if (h.nlmsg_flags & NLM_F_DUMP_INTR)
			return -EAGAIN;
		if (h.nlmsg_type == NLMSG_ERROR || h.nlmsg_type == NLMSG_DONE) {
			int err = 0;

			/* NLMSG_ERROR: struct nlmsgerr, its int first; NLMSG_DONE: an int. */
			if (mlen >= NLMSG_LENGTH(sizeof(int)))
				memcpy(&err, b + NLMSG_HDRLEN, sizeof(err));
			else if (h.nlmsg_type == NLMSG_ERROR)
				return -EBADMSG;
			if (err > 0 || err < -4095)
				return -EBADMSG;
			if (err < 0)
				return err;
			return h.nlmsg_type == NLMSG_DONE ? 1 : -EBADMSG;
		}
		if (h.nlmsg_type != SOCK_DIAG_BY_FAMILY)
			return -EBADMSG;
		struct unix_diag_msg d;

		if (mlen < NLMSG_LENGTH(sizeof(d)))
			return -EBADMSG;
		memcpy(&d, b + NLMSG_HDRLEN, sizeof(d));
		if (d.udiag_family != AF_UNIX)
			return -EBADMSG;
		if (d.udiag_state != UDIAG_ESTABLISHED &&
		    (!key->abstract || d.udiag_type == key->type) &&
		    attrs_match(b + NLMSG_LENGTH(sizeof(d)), mlen - NLMSG_LENGTH(sizeof(d)), key)) {
			m->n++;
			m->ino = d.udiag_ino;
			m->type = d.udiag_type;
			m->state = d.udiag_state;
		}
		step = NLMSG_ALIGN(mlen);
		if (step >= len)
			break;
		b += step;
		len -= step;
	}
	return 0;
}

/* Send the request and feed every datagram of the answer to udiag_parse(). */
static int
dump(const void *req, size_t req_len, uint32_t seq, const struct udiag_key *key,
     struct udiag_match *m)
{
	static _Alignas(NLMSG_ALIGNTO) unsigned char buf[UDIAG_BUF];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	_cleanup_close_ int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (nl < 0)
		return -errno;
	if (setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	if (sendto(nl, req, req_len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct sockaddr_nl from;
		struct msghdr mh = { .msg_name = &from,
				     .msg_namelen = sizeof(from),
				     .msg_iov = &iov,
				     .msg_iovlen = 1 };
		ssize_t n = recvmsg(nl, &mh, 0);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if ((mh.msg_flags & MSG_TRUNC) != 0)
			return -EMSGSIZE;
		if (mh.msg_namelen != sizeof(from) || from.nl_pid != 0)
			continue; /* not the kernel's */
		r = udiag_parse(buf, (size_t) n, seq, key, m);
		if (r != 0)
			return r < 0 ? r : 0;
	}
}

int
udiag_lookup(const struct udiag_key *key, struct udiag_match *ret)
{
	static uint32_t seq;
	unsigned char req[UDIAG_REQ_SIZE];
	int r = -EAGAIN;

	/* A dump interrupted by the kernel is taken again, a few times. */
	for (unsigned i = 0; i < 3 && r == -EAGAIN; i++) {
		size_t len = udiag_request(key, ++seq, req);

		*ret = (struct udiag_match){ .state = -1 };
		r = dump(req, len, seq, key, ret);
	}
	return r;
}

int
udiag_probe(void)
{
	/* No state asked for: the kernel walks its sockets and sends none. */
	static const struct udiag_key none = { .abstract = true };
	struct udiag_match m = {};
	unsigned char req[UDIAG_REQ_SIZE];
	size_t len = build(0, 0, 1, req);

	return dump(req, len, 1, &none, &m);
}
