/* SPDX-License-Identifier: MIT */
/* A unit's cgroup, asked of the user manager (usercg-unit.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-util.h"
#include "cgroup/usercg-bus.h"
#include "cgroup/usercg-unit.h"
#include "errbuf.h"
#include "macro.h"

/* The unit's object path: systemd escapes every byte but [A-Za-z0-9] as _XX. */
static int
unit_object_path(const char *unit, char *buf, size_t len)
{
	size_t n = (size_t) snprintf(buf, len, "/org/freedesktop/systemd1/unit/");

	for (const char *p = unit; *p != '\0'; p++) {
		int m = isalnum((unsigned char) *p) ? snprintf(buf + n, len - n, "%c", *p)
						    : snprintf(buf + n, len - n, "_%02x",
							       (unsigned) (unsigned char) *p);

		if (m < 0 || (size_t) m >= len - n)
			return -ENAMETOOLONG;
		n += (size_t) m;
	}
	return 0;
}

int
usercg_unit_cgroup(const char *unit, char *ret, size_t retlen, char *err, size_t errlen)
{
	_cleanup_(sdbus_closep) sd_bus *bus = NULL;
	_cleanup_(sdbus_error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *cg = NULL;
	const struct sdbus *sd;
	char path[512];
	int r;

	r = unit_object_path(unit, path, sizeof(path));
	if (r < 0) {
		set_err(err, errlen, "%s: name too long", unit);
		return r;
	}
	r = usercg_bus_connect(&sd, &bus, err, errlen);
	if (r < 0) /* no socket of the manager's (err says why): not that the unit is gone */
		return r == -ENOENT ? -ENOTCONN : r;
	r = sd->bus_get_property_string(bus, "org.freedesktop.systemd1", path,
					"org.freedesktop.systemd1.Scope", "ControlGroup", &e, &cg);
	if (r < 0 && e.name != NULL &&
	    (streq(e.name, "org.freedesktop.systemd1.NoSuchUnit") ||
	     streq(e.name, "org.freedesktop.DBus.Error.UnknownObject") ||
	     streq(e.name, "org.freedesktop.DBus.Error.UnknownInterface")))
		return -ENOENT;
	if (r < 0) {
		set_err(err, errlen, "your systemd user manager does not answer about %s: %s", unit,
			e.message != NULL ? e.message : strerror(-r));
		return r;
	}
	if (cg == NULL || cg[0] != '/' || strstr(cg, "/..") != NULL)
		return -ENOENT; /* not running: no cgroup */
	if (snprintf(ret, retlen, "%s%s", CG_MOUNT, cg) >= (int) retlen) {
		set_err(err, errlen, "%s: cgroup path too long", unit);
		return -ENAMETOOLONG;
	}
	return 0;
}
