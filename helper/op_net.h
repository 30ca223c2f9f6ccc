/* SPDX-License-Identifier: MIT */
/* --net in cgroup mode: the helper's BPF programs on the leaf (op_net.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "session.h"

/* Check the CREATE request's net mode and proxy port (wire values, PROTOCOL.md 3.2).
 * -EBADMSG for values out of range (a protocol violation). */
int net_check_request(uint32_t net, uint32_t proxy_port);

/* Load the programs for net (a policy_net) and attach them to s->leaf_fd, before any
 * process is attached.  0 for POLICY_NET_HOST (nothing to do); -ENOTSUP with msg when
 * the helper lacks cap_bpf/cap_net_admin or the kernel refuses. */
int net_attach(struct session *s, uint32_t net, uint16_t proxy_port, char *msg, size_t msglen);
