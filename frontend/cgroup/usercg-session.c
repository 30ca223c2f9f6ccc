/* SPDX-License-Identifier: MIT */
/* user-cgroup mode for sessions (usercg.h): a session's scope, and a call's leaf below it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup/usercg.h"
#include "errbuf.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"

int
usercg_open_session(struct usercg *u, const char *id, pid_t pid, const struct sc_request *lim,
		    uint64_t runtime_max_ms, char *err, size_t errlen)
{
	char avail[256];
	struct sc_request want = *lim;
	int r;

	(void) snprintf(u->unit, sizeof(u->unit), "sandcap-sess-%s.scope", id);
	r = usercg_open_scope(u, pid, "keeper", lim, runtime_max_ms, err, errlen);
	if (r < 0)
		return r;
	r = read_full_at(u->scope_fd, "cgroup.controllers", avail, sizeof(avail), NULL);
	if (r < 0) {
		set_err(err, errlen, "cannot read %s/cgroup.controllers: %s", u->path,
			strerror(-r));
		return r;
	}
	/* cpu too when there is one: a call may ask --cpu of its own. */
	avail[strcspn(avail, "\n")] = '\0';
	if (word_in_list(avail, "cpu") && want.cpu_percent == 0)
		want.cpu_percent = 100;
	r = usercg_enable_controllers(u, u->scope_fd, u->path, avail, &want, err, errlen);
	if (r < 0)
		return r;
	u->effective = *lim;
	return 0;
}

int
usercg_use_parent(struct usercg *u, const char *path, const char *leaf, char *err, size_t errlen)
{
	struct statfs sfs;
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
		set_err(err, errlen, "cannot open the session's cgroup %s: %s", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || st.st_uid != getuid()) {
		close(fd);
		set_err(err, errlen, "%s is not a cgroup v2 directory delegated to you", path);
		return -ENOTSUP;
	}
	u->parent_fd = safe_close(u->parent_fd);
	u->parent_fd = fd;
	(void) snprintf(u->leaf_name, sizeof(u->leaf_name), "%s", leaf);
	return 0;
}
