/* SPDX-License-Identifier: MIT */
/* Where profiles are found and how their files are read, and a profile's words written back
 * out for a shell (profile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "log.h"
#include "macro.h"
#include "run/profile.h"

#ifndef SC_PROFILES_DIR
#define SC_PROFILES_DIR "/etc/sandcap/profiles.d"
#endif

/* Read a whole profiles file; -ENOENT if absent.  NUL bytes are an error. */
int
profile_read_text(const char *path, char **ret, char *err, size_t errlen)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	if (fd < 0)
		return errno == ENOENT
			       ? -ENOENT
			       : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	buf = malloc(PROFILE_FILE_MAX + 1);
	if (buf == NULL)
		return -ENOMEM;
	r = read_full_fd(fd, buf, PROFILE_FILE_MAX + 1, &len);
	if (r == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %d bytes", path, PROFILE_FILE_MAX);
		return -EFBIG;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return -EIO;
	}
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	*ret = TAKE_PTR(buf);
	return 0;
}

void
profile_user_file(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		snprintf(buf, len, "%s/sandcap/profiles.ini", xdg);
	else if (home != NULL && home[0] == '/')
		snprintf(buf, len, "%s/.config/sandcap/profiles.ini", home);
	else
		buf[0] = '\0';
}

const char *
profile_admin_dir(void)
{
	const char *d = getenv("SANDCAP_PROFILES_DIR");

	return d != NULL && d[0] == '/' ? d : SC_PROFILES_DIR;
}

static int
ini_filter(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return de->d_name[0] != '.' && l > 4 && streq(de->d_name + l - 4, ".ini");
}

/* Calls fn for each candidate file in lookup order; stops when fn returns non-zero. */
int
profile_for_each_file(int (*fn)(const char *path, void *userdata), void *userdata)
{
	char path[PATH_MAX];
	struct dirent **list = NULL;
	int n, r = 0;

	profile_user_file(path, sizeof(path));
	if (path[0] != '\0') {
		r = fn(path, userdata);
		if (r != 0)
			return r;
	}
	n = scandir(profile_admin_dir(), &list, ini_filter, alphasort);
	for (int i = 0; i < n; i++) {
		if (r == 0) {
			snprintf(path, sizeof(path), "%s/%s", profile_admin_dir(), list[i]->d_name);
			r = fn(path, userdata);
		}
		free(list[i]);
	}
	free(list);
	return r;
}

/* Length of the UTF-8 sequence at s that prints as itself (not a C1 control), or 0. */
static size_t
utf8_printable_len(const unsigned char *s)
{
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xc2 && s[1] < 0xa0) || /* U+0080-U+009F: C1 controls */
	    (s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) || /* overlong */
	    (s[0] == 0xed && s[1] > 0x9f) ||                                  /* surrogates */
	    (s[0] == 0xf4 && s[1] > 0x8f))                                    /* above U+10FFFF */
		return 0;
	return n;
}

int
profile_shell_quote(const char *w, char **ret)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_@%+=:,./-";
	const unsigned char *s = (const unsigned char *) w;
	size_t len = strlen(w), o = 0;
	bool open = false; /* inside '...' */
	char *buf;

	if (strchr(w, '\n') != NULL)
		return -EINVAL;
	if (len > 0 && strspn(w, safe) == len) {
		buf = strdup(w);
		if (buf == NULL)
			return -ENOMEM;
		*ret = buf;
		return 0;
	}
	/* Worst case, every byte becomes '"$(printf '\ooo')"' (20 bytes). */
	buf = malloc(len * 20 + 3);
	if (buf == NULL)
		return -ENOMEM;
	if (len == 0) {
		memcpy(buf, "''", 2);
		o = 2;
	}
	while (*s != '\0') {
		size_t n = *s >= 0x80 ? utf8_printable_len(s) : (*s >= 0x20 && *s != 0x7f);

		if (n == 0 || *s == '\'') {
			if (open)
				buf[o++] = '\'';
			open = false;
		} else if (!open) {
			buf[o++] = '\'';
			open = true;
		}
		if (n == 0) {
			/* A byte that must not reach a terminal raw (a control, or not UTF-8): printf
			 * makes it when the line is run.  Exact, as no word holds a newline (which
			 * $(...) would strip). */
			o += (size_t) sprintf(buf + o, "\"$(printf '\\%03o')\"", *s);
			s++;
		} else if (*s == '\'') {
			buf[o++] = '\\';
			buf[o++] = '\'';
			s++;
		} else {
			memcpy(buf + o, s, n);
			o += n;
			s += n;
		}
	}
	if (open)
		buf[o++] = '\'';
	buf[o] = '\0';
	*ret = buf;
	return 0;
}
