/* SPDX-License-Identifier: MIT */
/* SOCK_SEQPACKET transport with SCM_RIGHTS.  Strict: truncation and unexpected control
 * messages are errors, and fds that arrive with a rejected datagram are closed. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "wire.h"
#include "wire_io.h"

void
wire_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fds[i] = safe_close(fds[i]);
}

int
wire_send_nowait(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * WIRE_FDS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (nfds > WIRE_FDS_MAX || len > WIRE_MSG_MAX)
		return -EINVAL;
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		if (c == NULL) /* cannot be: msg_controllen fits a header */
			return -EINVAL;
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t) n == len ? 0 : -EMSGSIZE;
}

int
wire_recv(int sock, void *buf, size_t bufsz, int *fds, size_t *ret_nfds)
{
	/* Room for one more fd than allowed, so that an extra fd shows up as a count error
	 * rather than as MSG_CTRUNC (both are rejected either way). */
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * (WIRE_FDS_MAX + 1))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = bufsz };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	int got[WIRE_FDS_MAX + 1];
	size_t ngot = 0;
	bool bad = false;
	ssize_t n;

	for (size_t i = 0; i < WIRE_FDS_MAX; i++)
		fds[i] = -EBADF;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			bad = true;
			continue;
		}
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (ngot < ELEMENTSOF(got))
				got[ngot++] = fd;
			else
				(void) close(fd); /* cannot happen with our buffer size */
		}
	}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
		wire_close_fds(got, ngot);
		return -EMSGSIZE;
	}
	if (bad || ngot > WIRE_FDS_MAX) {
		wire_close_fds(got, ngot);
		return -EBADMSG;
	}
	if ((size_t) n >= bufsz) { /* cannot tell "exactly full" from "truncated" */
		wire_close_fds(got, ngot);
		return -EMSGSIZE;
	}
	memcpy(fds, got, ngot * sizeof(int));
	*ret_nfds = ngot;
	return (int) n;
}
