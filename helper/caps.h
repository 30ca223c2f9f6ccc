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
/* Make every capability in caps effective with one capset(2), for a sequence of syscalls on
 * objects the helper made in this request and holds by fd (SECURITY.md "Savings of issue
 * 19" names each such sequence); pair with caps_lower_all().  -EPERM on failure. */
int caps_raise_set(uint64_t caps);
/* Nothing effective any more (one capset(2), none when nothing is); errno is kept. */
void caps_lower_all(void);

/* Give up every capability for good: permitted, effective, inheritable and ambient, checked
 * by reading them back.  For the process SPAWN creates (op_spawn.c), before it reads a
 * byte from sandcap.  0, or -EPERM when any is left. */
int caps_drop_all(void);

/* Make cap effective for the next syscall; pair with caps_lower_all().  -EPERM on failure. */
#define caps_raise(cap) caps_raise_set(CAPS(cap))

/* Evaluate one syscall expression with cap effective; errno is the syscall's (EPERM if the
 * raise failed, in which case the expression is not evaluated).  Yields its value. */
#define WITH_CAP(cap, expr) ({                                  \
	__typeof__(expr) _v;                                    \
	if (caps_raise(cap) < 0) {                              \
		errno = EPERM;                                  \
		_v = (__typeof__(expr)) -1;                     \
	} else {                                                \
		_v = (expr);                                    \
		caps_lower_all();                               \
	}                                                       \
	_v;                                                     \
})
