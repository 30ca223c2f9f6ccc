/* SPDX-License-Identifier: MIT */
/* Who is the caller: the user and group names a policy's [user:NAME] and [group:NAME]
 * sections are matched against, looked up through the C library's name services. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The caller's user name and the names of all its groups (primary first) when
 * want_groups, for policy_resolve(): strdup'ed into *ret_user and names[0..*ret_n).
 * Returns 0; -ENOENT when the uid has no passwd entry (then *ret_user is NULL and names
 * are those of the process's own groups, getgid() and getgroups()); -E2BIG when the caller
 * is in more than max groups (judged by only some of them, a [group:] section could be
 * escaped: the caller refuses); -ENOMEM. */
int caller_names(bool want_groups, char **ret_user, char **names, size_t max, size_t *ret_n);
