/* SPDX-License-Identifier: MIT */
/* `sandcap profile list` / `sandcap profile show NAME` (profiles themselves: profile.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "log.h"
#include "macro.h"
#include "run/profile.h"

struct list_ctx {
	const char *file;
	bool any;
};

static void
list_header(const char *section, unsigned line, void *userdata)
{
	struct list_ctx *lc = userdata;

	printf("%-20s %s:%u\n", section, lc->file, line);
	lc->any = true;
}

/* A file that cannot be read or parsed ends the list there: profile_load() stops at it too,
 * so no profile in it or in a later file can be used (sandcap(1)). */
static int
list_one(const char *path, void *userdata)
{
	struct list_ctx *lc = userdata;
	_cleanup_free_ char *text = NULL;
	char err[PROFILE_ERR_MAX];
	int r;

	r = profile_read_text(path, &text, err, sizeof(err));
	if (r == -ENOENT)
		return 0;
	if (r == 0) {
		lc->file = path;
		r = profile_parse_text(text, path, list_header, lc, err, sizeof(err));
	}
	if (r < 0) {
		fprintf(stderr,
			"sandcap: profile list: %s\n"
			"sandcap: profile list: incomplete: sandcap run --profile refuses %s and reads "
			"no profiles file after it; fix it to list (and use) the rest\n",
			err, path);
		return r;
	}
	return 0;
}

/* The profile as one line to paste into a POSIX shell: every word quoted as needed, nothing
 * from the file (values, its path) reaching the terminal raw.  Printed only when whole. */
static int
show(const struct profile *p)
{
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&line, &size);
	char esc[4 * PATH_MAX + 1];
	int r = 0;

	if (f == NULL)
		return -ENOMEM;
	fprintf(f, "# [%s] from %s:%u; command-line flags override these\nsandcap run", p->name,
		log_escape(p->file, esc, sizeof(esc)), p->line);
	for (size_t i = 0; r == 0 && i < p->nwords; i++) {
		_cleanup_free_ char *q = NULL;

		r = profile_shell_quote(p->words[i], &q);
		if (r == 0)
			fprintf(f, " %s", q);
	}
	fprintf(f, " -- COMMAND\n");
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	fputs(line, stdout);
	return 0;
}

int
cmd_profile(int argc, char **argv)
{
	struct list_ctx lc = { 0 };
	char err[PROFILE_ERR_MAX];
	struct profile p;
	int r;

	if (argc >= 2 && streq(argv[1], "list") && argc == 2) {
		printf("%-20s %s\n", "PROFILE", "DEFINED AT (first match wins)");
		if (profile_for_each_file(list_one, &lc) < 0)
			return SC_EXIT_FAILURE;
		return 0;
	}
	if (argc == 3 && streq(argv[1], "show")) {
		char esc[256];

		r = profile_load(argv[2], &p, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "sandcap: profile %s: %s\n",
				log_escape(argv[2], esc, sizeof(esc)), err);
			return SC_EXIT_FAILURE;
		}
		r = show(&p);
		profile_done(&p);
		if (r < 0) {
			fprintf(stderr, "sandcap: profile show: %s\n", strerror(-r));
			return SC_EXIT_FAILURE;
		}
		return 0;
	}
	if (argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		printf("Usage: sandcap profile list\n       sandcap profile show NAME\n\n"
		       "Profiles are [NAME] sections of $XDG_CONFIG_HOME/sandcap/profiles.ini "
		       "(~/.config/sandcap/profiles.ini), then of %s/*.ini; the first match wins.\n"
		       "Use one with sandcap run --profile NAME; see sandcap(1).\n\n"
		       "Exit status: 0; 125 if a profiles file cannot be read or is malformed (list\n"
		       "stops at it, as --profile does) or show finds no profile NAME.\n",
		       profile_admin_dir());
		return 0;
	}
	fprintf(stderr,
		"sandcap: profile: expected 'list' or 'show NAME' (see sandcap profile --help)\n");
	return SC_EXIT_FAILURE;
}
