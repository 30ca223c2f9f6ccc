/* SPDX-License-Identifier: MIT */
/* The helper's capabilities: permitted only, raised into the effective set around one
 * syscall at a time.  Single-threaded (capabilities are per thread). */
#pragma once

#include <stdbool.h>
#include <linux/capability.h>
#include <stddef.h>
#include <stdint.h>

/* Keep only the helper's capabilities in the permitted set, none effective.  Returns 0, or
 * -EPERM with the names of the missing capabilities in missing (" cap_chown ..."). */
int caps_init(char *missing, size_t len);

/* Are cap_bpf and cap_net_admin permitted (after caps_init)?  Optional: without them the
 * helper serves --net host only. */
bool caps_have_net(void);

/* A set of capabilities for caps_raise_set(). */
#define CAPS(c) ((uint64_t) 1 << (c))
/* Make every capability in caps effective; pair with caps_lower_all() in the same function.
 * Only priv.c calls it.  -EPERM on failure. */
int caps_raise_set(uint64_t caps);
/* Nothing effective any more (one capset(2), none when nothing is); errno is kept. */
void caps_lower_all(void);
#define caps_raise(cap) caps_raise_set(CAPS(cap))

/* Give up every capability for good: permitted, effective, inheritable and ambient, checked
 * by reading them back.  For the process SPAWN creates (op_spawn.c), before it reads a
 * byte from sandcap.  0, or -EPERM when any is left. */
int caps_drop_all(void);
