/* SPDX-License-Identifier: MIT */
/* cgroup2 leaves: their naming rule, kill and wait for empty through descriptors, and the
 * checks a leaf named by a deadline record must pass before it is killed.  Shared by the helper, the reaper and
 * sandcap's user-cgroup mode. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where cgroup2 is mounted: every leaf sandcap kills by path lies below it. */
#define CG_MOUNT "/sys/fs/cgroup"

/* Write "1" to an open cgroup.kill fd (opened early: permission is checked at open). */
int cg_kill_fd(int kill_fd);
/* 1 if events_fd (a leaf's cgroup.events) says "populated 1", 0 if "populated 0", or
 * -errno.  One pread(2) at offset 0, which also re-arms the POLLPRI event. */
int cg_populated(int events_fd);
/* Wait (poll POLLPRI, no loop over sleeps) until events_fd says "populated 0", at most
 * timeout_ms.  -ETIMEDOUT otherwise. */
int cg_wait_empty(int events_fd, int timeout_ms);
/* Does path (from a deadline record) name a directory below CG_MOUNT whose last component
 * is name (the record's)?  Pure. */
bool cg_leaf_path_ok(const char *path, const char *name);
/* Is the directory behind leaf_fd a root-owned cgroup2 directory, as the helper leaves
 * every leaf?  0, -EPERM when not, or -errno. */
int cg_leaf_fd_ok(int leaf_fd);

/* The leaf naming rule: names are made by the helper, never taken from a client. */
#define CG_NAME_MAX 40 /* "<uid>-<16 hex>" is at most 10 + 1 + 16 */

/* Pure: "<uid>-<16 lowercase hex>" from 8 random bytes. */
void cg_name_format(uid_t uid, const uint8_t rnd[8], char *buf, size_t bufsz);
/* Pure: is name exactly of that form?  If so *ret_uid is its uid. */
bool cg_name_parse(const char *name, uid_t *ret_uid);
/* A fresh name from getrandom(). */
int cg_name_new(uid_t uid, char *buf, size_t bufsz);
