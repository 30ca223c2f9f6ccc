/* SPDX-License-Identifier: MIT */
/* One run, from the child's start to the end of the sandbox (supervise.h); the parts are
 * listed in sv-internal.h. */
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "supervise/sv-internal.h"

struct ugate sv_ugate;

uint64_t
sv_age_ms(const struct sv_state *sv)
{
	return mono_ms() - sv->start_ms;
}

static void
state_close(struct sv_state *st)
{
	st->sigfd = safe_close(st->sigfd);
	st->epfd = safe_close(st->epfd);
	st->tfd = safe_close(st->tfd);
	st->gfd = safe_close(st->gfd);
	st->cfd = safe_close(st->cfd);
	st->pidfd = safe_close(st->pidfd);
	st->msg_fd = safe_close(st->msg_fd);
	if (st->ugate_on) {
		ugate_close(&sv_ugate);
		st->ugate_on = false;
	}
}

int
sv_run(const struct sv_spec *spec, struct sv_outcome *ret)
{
	struct sv_outcome out = {};
	struct sv_state st = { .spec = spec,
			       .out = &out,
			       .tty_fd = -EBADF,
			       .pidfd = -EBADF,
			       .sigfd = -EBADF,
			       .msg_fd = -EBADF,
			       .epfd = -EBADF,
			       .tfd = -EBADF,
			       .gfd = -EBADF,
			       .cfd = -EBADF,
			       .extra_fd = -1 };
	int r;

	sv_self = getpid();
	sv_exclude_pid = spec->exclude_pid;
	r = sv_setup_signals();
	if (r >= 0) {
		sv_tty_take(&st);
		/* The control socket before the command runs: one that took the mode of its
		 * directory away first would leave the run without it, out of reach of sandcap
		 * kill and of its session's end and TTL. */
		if (spec->open_extra != NULL)
			st.extra_fd = spec->open_extra(spec->extra_userdata);
		if (st.extra_fd < -1) {
			r = st.extra_fd;
			st.extra_fd = -1;
		} else {
			r = spec->spawn != NULL ? sv_start_spawned(&st) : sv_start_cloned(&st);
		}
	}
	if (r >= 0) {
		sv_loop(&st);
		sv_end_sandbox(&st);
		if (st.ugate_on) {
			out.unix_refused = sv_ugate.n_refused;
			out.unix_undumpable = sv_ugate.n_undumpable;
			memcpy(out.unix_refused_first, sv_ugate.first_refused,
			       sizeof(out.unix_refused_first));
		}
		*ret = out;
	}
	state_close(&st);
	return r < 0 ? r : 0;
}
