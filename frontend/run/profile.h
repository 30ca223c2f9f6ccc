/* SPDX-License-Identifier: MIT */
/* Named profiles: sets of `sandcap run` options kept in INI files.
 *
 * Lookup of `--profile NAME`, first match wins:
 *   1. $XDG_CONFIG_HOME/sandcap/profiles.ini (default ~/.config/sandcap/profiles.ini), the user's;
 *   2. SC_PROFILES_DIR/ *.ini in name order (default /etc/sandcap/profiles.d), the admin's.
 * A profile section [NAME] holds keys named like the long options of `sandcap run` (memory,
 * cpu, pids, disk, timeout, grace, cpu-time, as, fsize, nofile, stack, core, nproc, net,
 * allow, unix, fs, rw, ro, fallback, no-cgroup, keep-fds, env, env-clear, env-deny, chdir;
 * env, env-deny and allow take space-separated words).  Values are validated here by
 * run_args_apply(), the command line's own checks, with FILE:LINE in every error;
 * the profile becomes option words placed before the command line's own, so flags given on
 * the command line override it.  A profile never raises a ceiling: the helper still decides. */
#pragma once

#include <limits.h>
#include <stddef.h>

#define PROFILE_WORDS_MAX 128
#define PROFILE_ERR_MAX   (PATH_MAX + 256)
#define PROFILE_FILE_MAX  (64 * 1024) /* bytes in one profiles file */

struct profile {
	char name[64];
	char file[PATH_MAX];            /* where it was found */
	unsigned line;                  /* line of its [NAME] header */
	char *words[PROFILE_WORDS_MAX]; /* "--memory", "512M", "--fallback", ... (malloc'ed) */
	size_t nwords;
};

/* Find and validate profile name.  -ENOENT (with the places searched in err) when no file
 * defines it; -EINVAL with "FILE:LINE: ..." when a file that is read is malformed. */
int profile_load(const char *name, struct profile *ret, char *err, size_t errlen);
void profile_done(struct profile *p);

/* Validate the whole text of one profiles file (every section); for tests and `list`.
 * cb (may be NULL) gets each section name and its header line. */
int profile_parse_text(const char *text, const char *filename,
		       void (*cb)(const char *section, unsigned line, void *userdata),
		       void *userdata, char *err, size_t errlen);

/* For `sandcap profile` (cmd/profile.c): read one file whole (-ENOENT if absent), the
 * admin's directory, and fn for each file in lookup order (stops at fn's nonzero return). */
int profile_read_text(const char *path, char **ret, char *err, size_t errlen);
const char *profile_admin_dir(void);
/* The user's profiles file in buf, or "" when neither $XDG_CONFIG_HOME nor $HOME is an
 * absolute path. */
void profile_user_file(char *buf, size_t len);
int profile_for_each_file(int (*fn)(const char *path, void *userdata), void *userdata);

/* w as one word of a POSIX shell command line, in *ret (malloc'ed): bare if made only of
 * [A-Za-z0-9_@%+=:,./-], else in single quotes (' as '\''), with each control byte, C1
 * control or byte that is not UTF-8 written as "$(printf '\ooo')" so that none reaches a
 * terminal raw.  -EINVAL for a word with a newline (no profile word holds one), -ENOMEM. */
int profile_shell_quote(const char *w, char **ret);

/* `sandcap profile list` / `sandcap profile show NAME` (cmd/profile.c). */
int cmd_profile(int argc, char **argv);
