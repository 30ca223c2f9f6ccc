/* SPDX-License-Identifier: MIT */
/* Send and receive one datagram of the helper protocol with SCM_RIGHTS fds.  No parsing. */
#pragma once

#include <stddef.h>

/* Send buf (one datagram) with nfds fds (<= WIRE_FDS_MAX) attached, MSG_DONTWAIT: -EAGAIN
 * instead of waiting for the peer to read (the helper: a peer that lets replies pile up has
 * broken the protocol).  MSG_NOSIGNAL: a gone peer is -EPIPE, never SIGPIPE.  Returns 0 or
 * -errno (-EMSGSIZE on a short send). */
int wire_send_nowait(int sock, const void *buf, size_t len, const int *fds, size_t nfds);

/* Receive one datagram into buf (bufsz >= WIRE_MSG_MAX + 1, so that an oversized datagram is
 * detected) and up to WIRE_FDS_MAX fds, received with MSG_CMSG_CLOEXEC into fds[] (which
 * must hold WIRE_FDS_MAX).  Returns the datagram size, 0 on EOF, or -errno:
 *   -EMSGSIZE  the datagram or its control data was truncated (MSG_TRUNC/MSG_CTRUNC)
 *   -EBADMSG   a control message other than SCM_RIGHTS, or more than WIRE_FDS_MAX fds
 * On any error every fd that arrived is closed.  *ret_nfds is set on success. */
int wire_recv(int sock, void *buf, size_t bufsz, int *fds, size_t *ret_nfds);

/* Close fds[0..n-1] and set them to -EBADF. */
void wire_close_fds(int *fds, size_t n);
