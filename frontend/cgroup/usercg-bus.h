/* SPDX-License-Identifier: MIT */
/* user-cgroup mode's talk with the user's own systemd manager (usercg.h): the connection
 * and the transient scope.  For usercg*.c only. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "cgroup/client.h"
#include "cgroup/sdbus.h"

/* The user manager's own socket when it is ours, else the user bus, with *ret_sd the sd-bus
 * functions to use on it (libsystemd loaded here, not before).  -ENOENT (no runtime
 * directory or socket of the user's: nothing is tried, nothing loaded), -ELIBACC (no
 * usable libsystemd: the reason and the fix in err) or -errno, with the reason in err. */
int usercg_bus_connect(const struct sdbus **ret_sd, sd_bus **ret, char *err, size_t errlen);
/* StartTransientUnit of unit (a scope with Delegate=yes) holding pid, with lim as the
 * unit's own limits (NULL: none) and RuntimeMaxSec runtime_max_ms (0: none); waits
 * (bounded) for its job to be done. */
int usercg_start_scope(const struct sdbus *sd, sd_bus *bus, const char *unit, pid_t pid,
		       const struct sc_request *lim, uint64_t runtime_max_ms, char *err,
		       size_t errlen);
