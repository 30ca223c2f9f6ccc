/* SPDX-License-Identifier: MIT */
/* Every privileged system call of the helper, one function each (priv.c).  Each raises what
 * it needs, makes its call, and lowers again on every path: nothing is effective between
 * two calls.  Each returns what the system call returns (a descriptor, a pid, 0), or -errno. */
#pragma once

#include <linux/bpf.h>
#include <linux/sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CAP_DAC_OVERRIDE: the root-owned 0700 dirs (cgroup_root, .locks, the deadline dir) and
 * root-owned control files, reached by fixed names relative to a descriptor we hold. */
int priv_openat(int dirfd, const char *name, int flags, mode_t mode);
/* openat2(2) with resolve (RESOLVE_*), for trees the user controls and record paths. */
int priv_openat2(int dirfd, const char *name, int flags, uint64_t resolve);
/* read_once_at() of <dirfd>/<name>: a root-only file or a file in a root-only dir. */
int priv_read_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len);
/* Open each of names[0..n) in dirfd (O_NOFOLLOW | flags) into fds[i], or -errno there. */
void priv_openat_each(int dirfd, const char *const *names, size_t n, int flags, int *fds);
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
