/* SPDX-License-Identifier: MIT */
/* The control-socket callbacks of `sandcap run` (run/ctl.c): status and kill. */
#pragma once

#include "run/args.h"
#include "cgroup/client.h"
#include "supervise/control.h"
#include "supervise/supervise.h"

struct run_ctl {
	const char *id;
	const char *mode;
	char *const *argv;
	const struct sc_session *sess; /* NULL in rlimit mode */
	const struct run_opts *o;
	int listen_fd;
	struct sv_state *sv; /* while serving */
	/* The control socket's, for control_unlisten(); set before the split where a keeper
	 * is started (control_path()), which removes it if the supervisor is killed. */
	char path[CONTROL_PATH_MAX];
	/* A session's call: no start without the socket (its end and its TTL stop the call
	 * through it); the refusal goes into error. */
	bool required;
	char *error;
	size_t errlen;
};

/* sv_spec.open_extra: the control socket, made before the command starts (a warning
 * without it, unless -q); its fd, or -1; -errno when required and it cannot be made. */
int run_ctl_open(void *userdata);

/* sv_spec.on_extra: serve one connection on c->listen_fd. */
void run_ctl_ready(void *userdata, struct sv_state *sv);

/* Cleanup: close the listening socket and remove its name. */
void run_ctl_closep(struct run_ctl *c);
