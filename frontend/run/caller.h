/* SPDX-License-Identifier: MIT */
/* Who is the caller, for sandcap's own early decisions: policy_caller_lookup() on this
 * process's uid. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* policy_caller_lookup(getuid(), ...).  When the uid has no passwd entry: -ENOENT with
 * ret->user NULL and, when want_groups, the names of the process's own groups (getgid()
 * and getgroups()), so that such a uid is still bound by its groups' sections; -E2BIG when
 * those are more than max.  Free ret with policy_caller_done() in every case. */
int caller_lookup(bool want_groups, size_t max, struct policy_caller *ret);
