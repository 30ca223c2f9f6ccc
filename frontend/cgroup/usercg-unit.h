/* SPDX-License-Identifier: MIT */
/* What the user's own systemd manager says of a unit (usercg-unit.c): the word of the
 * manager, which a sandboxed command of the user cannot forge the way it can a file. */
#pragma once

#include <stddef.h>

/* The cgroup directory (CG_MOUNT + its ControlGroup) of unit, as the user manager has it:
 * 0 with the path in ret; -ENOENT when the manager has no such unit running (its
 * ControlGroup empty or the unit unknown); another -errno when the manager cannot be asked,
 * with the reason in err. */
int usercg_unit_cgroup(const char *unit, char *ret, size_t retlen, char *err, size_t errlen);
