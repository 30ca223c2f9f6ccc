/* SPDX-License-Identifier: MIT */
/* The helper's privilege: its capabilities (caps.c), permitted only, raised into the
 * effective set around one syscall at a time (single-threaded: capabilities are per
 * thread); and every privileged system call, one function each (priv.c).  Each raises what
 * it needs, makes its call, and lowers again on every path: nothing is effective between
 * two calls.  Each returns what the system call returns (a descriptor, a pid, 0), or -errno. */
#pragma once

#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* CAP_DAC_OVERRIDE: the root-owned 0700 dirs (cgroup_root, .locks, the deadline dir) and
 * root-owned control files, reached by fixed names relative to a descriptor we hold. */
int priv_openat(int dirfd, const char *name, int flags, mode_t mode);
/* openat2(2) with resolve (RESOLVE_*), for trees the user controls and record paths. */
int priv_openat2(int dirfd, const char *name, int flags, uint64_t resolve);
/* read_once_at() of <dirfd>/<name>: a root-only file or a file in a root-only dir. */
int priv_read_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len);
int priv_mkdirat(int dirfd, const char *name, mode_t mode);
int priv_unlinkat(int dirfd, const char *name, int flags);
int priv_renameat2(int olddir, const char *old, int newdir, const char *new, unsigned flags);
/* Link the open O_TMPFILE fd as <dirfd>/<name> (through /proc/self/fd). */
int priv_link_fd(int fd, int dirfd, const char *name);
/* clone3(2) into the cgroup in ca->cgroup; 0 in the new process, which must drop every
 * capability before anything else. */
pid_t priv_clone_into_cgroup(struct clone_args *ca);

/* CAP_CHOWN: hand a directory the helper made (as the user's fsuid) to uid:gid. */
int priv_fchown(int fd, uid_t uid, gid_t gid);
/* A cgroup dir the helper made and holds by fd, and every interface file in it, to 0:0.
 * Leaves fd at the end of its listing. */
int priv_take_cgroup(int fd);

/* CAP_SYS_ADMIN: the per-sandbox tmpfs. */
int priv_fsopen_tmpfs(void);
/* Create the tmpfs configured in fsfd and attach it at the mount point dirfd: the mount's
 * root as an O_PATH-like fd (fsmount(2)). */
int priv_tmpfs_attach(int fsfd, int dirfd);
/* Reconfigure the tmpfs whose root is rootfd to size and nr_inodes (fspick(2)). */
int priv_tmpfs_resize(int rootfd, const char *size, const char *inodes);
int priv_umount_detach(const char *path);

/* CAP_BPF and CAP_NET_ADMIN: load a cgroup socket program, attach it to a leaf. */
int priv_bpf(int cmd, union bpf_attr *attr);
