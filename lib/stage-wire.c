/* SPDX-License-Identifier: MIT */
/* The stage's wire format (stage.h): pure, for the fuzzer (tests/fuzz/fuzz-stage.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "stage.h"

struct buf {
	char *p;
	size_t len, cap;
	int err;
};

static void
buf_put(struct buf *b, const void *data, size_t n)
{
	if (b->err != 0)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap == 0 ? 4096 : b->cap;
		char *p;

		while (n > cap - b->len) {
			if (cap > SIZE_MAX / 2) {
				b->err = -E2BIG;
				return;
			}
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (p == NULL) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static size_t
count_strv(char **v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

int
stage_pack(const struct stage_spec *s, void **ret, size_t *ret_len)
{
	size_t n_argv = count_strv(s->argv), n_envp = count_strv(s->envp);
	struct stage_wire w = {
		.magic = STAGE_MAGIC,
		.flags = s->flags,
		.parent = s->parent,
		.personality = s->personality,
		.n_argv = (uint32_t) n_argv,
		.n_envp = (uint32_t) n_envp,
		.n_rl = (uint32_t) s->n_rl,
		.n_keep = (uint32_t) s->n_keep,
		.n_rulesets = (uint32_t) s->n_rulesets,
		.prog_len = (uint32_t) s->prog_len,
	};
	struct buf b = { 0 };

	if ((s->flags & ~STAGE_F_ALL) != 0 || s->personality == 0xffffffffu || n_argv == 0 ||
	    n_argv > STAGE_ARGS_MAX || n_envp > STAGE_ARGS_MAX || s->n_rl > STAGE_RLIMITS_MAX ||
	    s->n_keep > STAGE_KEEP_MAX || s->n_rulesets > STAGE_RULESETS_MAX ||
	    s->prog_len > BPF_MAXINSNS || (s->prog_len > 0) != (s->prog != NULL) ||
	    ((s->flags & STAGE_F_CHDIR) != 0) != (s->chdir != NULL))
		return -EINVAL;
	buf_put(&b, &w, sizeof(w));
	for (size_t i = 0; i < s->n_rl; i++) {
		struct stage_wire_rl rl = { .resource = s->rl[i].resource,
					    .soft = s->rl[i].soft,
					    .hard = s->rl[i].hard };

		buf_put(&b, &rl, sizeof(rl));
	}
	buf_put(&b, s->keep, s->n_keep * sizeof(s->keep[0]));
	if (s->prog_len > 0)
		buf_put(&b, s->prog, s->prog_len * sizeof(s->prog[0]));
	for (size_t i = 0; i < n_argv; i++)
		buf_put(&b, s->argv[i], strlen(s->argv[i]) + 1);
	for (size_t i = 0; i < n_envp; i++)
		buf_put(&b, s->envp[i], strlen(s->envp[i]) + 1);
	if (s->chdir != NULL)
		buf_put(&b, s->chdir, strlen(s->chdir) + 1);
	for (size_t i = 0; i < s->n_rl; i++)
		buf_put(&b, s->rl[i].option, strlen(s->rl[i].option) + 1);
	if (b.err != 0) {
		free(b.p);
		return b.err;
	}
	*ret = b.p;
	*ret_len = b.len;
	return 0;
}

/* The next NUL-terminated string of [*p, end), or NULL. */
static const char *
next_str(const char **p, const char *end)
{
	const char *s = *p, *nul;

	if (s >= end)
		return NULL;
	nul = memchr(s, '\0', (size_t) (end - s));
	if (nul == NULL)
		return NULL;
	*p = nul + 1;
	return s;
}

/* n strings of [*p, end) into v[0..n-1] and NULL into v[n]: 0, or -EBADMSG. */
static int
unpack_strv(const char **p, const char *end, size_t n, char **v)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = (char *) next_str(p, end);
		if (v[i] == NULL)
			return -EBADMSG;
	}
	v[n] = NULL;
	return 0;
}

static bool
rlimit_ok(const struct stage_wire_rl *rl)
{
	return rl->resource >= 0 && rl->resource < RLIM_NLIMITS && rl->pad == 0 &&
	       rl->soft <= rl->hard;
}

/* The head of blob, checked: 0, or -EBADMSG. */
static int
unpack_head(const void *blob, size_t len, struct stage_wire *w)
{
	if (len < sizeof(*w))
		return -EBADMSG;
	memcpy(w, blob, sizeof(*w));
	if (w->magic != STAGE_MAGIC || (w->flags & ~STAGE_F_ALL) != 0 || w->parent <= 0 ||
	    w->personality == 0xffffffffu || w->n_argv == 0 || w->n_argv > STAGE_ARGS_MAX ||
	    w->n_envp > STAGE_ARGS_MAX || w->n_rl > STAGE_RLIMITS_MAX ||
	    w->n_keep > STAGE_KEEP_MAX || w->n_rulesets > STAGE_RULESETS_MAX ||
	    w->prog_len > BPF_MAXINSNS)
		return -EBADMSG;
	/* Every string takes a byte at least: no more of them than bytes after the head (so
	 * that stage_vec_need() asks for no vector larger than the blob warrants). */
	if ((size_t) w->n_argv + w->n_envp > len - sizeof(*w))
		return -EBADMSG;
	return 0;
}

size_t
stage_vec_need(const void *blob, size_t len)
{
	struct stage_wire w;

	if (unpack_head(blob, len, &w) < 0)
		return 0;
	return (size_t) w.n_argv + w.n_envp + 2; /* each bounded: no overflow */
}

int
stage_unpack(const void *blob, size_t len, struct stage_spec *s, char **vec, size_t vec_cap)
{
	const char *p = blob, *end = (const char *) blob + len;
	struct stage_wire w;
	size_t fixed;

	if (unpack_head(blob, len, &w) < 0)
		return -EBADMSG;
	if (vec_cap < (size_t) w.n_argv + w.n_envp + 2)
		return -ENOSPC;
	/* Each count is bounded above, so this cannot overflow. */
	fixed = sizeof(w) + w.n_rl * sizeof(struct stage_wire_rl) + w.n_keep * sizeof(uint32_t) +
		w.prog_len * sizeof(struct sock_filter);
	if (fixed > len)
		return -EBADMSG;
	*s = (struct stage_spec){ .flags = w.flags,
				  .parent = w.parent,
				  .personality = w.personality,
				  .n_rl = w.n_rl,
				  .n_keep = w.n_keep,
				  .n_rulesets = w.n_rulesets,
				  .prog_len = w.prog_len };
	p += sizeof(w);
	for (size_t i = 0; i < w.n_rl; i++, p += sizeof(struct stage_wire_rl)) {
		struct stage_wire_rl rl;

		memcpy(&rl, p, sizeof(rl));
		if (!rlimit_ok(&rl))
			return -EBADMSG;
		s->rl[i] = (struct stage_rlimit){ .resource = rl.resource,
						  .soft = rl.soft,
						  .hard = rl.hard };
	}
	for (size_t i = 0; i < w.n_keep; i++, p += sizeof(uint32_t)) {
		memcpy(&s->keep[i], p, sizeof(uint32_t));
		if (s->keep[i] < 3 || s->keep[i] >= STAGE_FD_MAX)
			return -EBADMSG;
	}
	/* The program is read where it lies: the blob is page-aligned, and so is everything
	 * before it (multiples of 4 bytes from the head). */
	s->prog = w.prog_len > 0 ? (const struct sock_filter *) (const void *) p : NULL;
	p += w.prog_len * sizeof(struct sock_filter);

	s->argv = vec;
	s->envp = vec + w.n_argv + 1;
	if (unpack_strv(&p, end, w.n_argv, s->argv) < 0 ||
	    unpack_strv(&p, end, w.n_envp, s->envp) < 0)
		return -EBADMSG;
	if ((w.flags & STAGE_F_CHDIR) != 0 && (s->chdir = next_str(&p, end)) == NULL)
		return -EBADMSG;
	for (size_t i = 0; i < w.n_rl; i++)
		if ((s->rl[i].option = next_str(&p, end)) == NULL)
			return -EBADMSG;
	return p == end ? 0 : -EBADMSG;
}
