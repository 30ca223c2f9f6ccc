/* SPDX-License-Identifier: MIT */
/* sd-bus through dlopen(): see sdbus-dl.h. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "sdbus-dl.h"

struct sdbus_api sdbus_api;

int
sdbus_load(char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define S(f, m) { #f, offsetof(struct sdbus_api, m) }
		S(sd_bus_call, call),
		S(sd_bus_error_free, error_free),
		S(sd_bus_flush_close_unref, flush_close_unref),
		S(sd_bus_get_property_string, get_property_string),
		S(sd_bus_match_signal, match_signal),
		S(sd_bus_message_append, message_append),
		S(sd_bus_message_close_container, message_close_container),
		S(sd_bus_message_new_method_call, message_new_method_call),
		S(sd_bus_message_open_container, message_open_container),
		S(sd_bus_message_read, message_read),
		S(sd_bus_message_unref, message_unref),
		S(sd_bus_new, new_),
		S(sd_bus_process, process),
		S(sd_bus_set_address, set_address),
		S(sd_bus_set_bus_client, set_bus_client),
		S(sd_bus_set_method_call_timeout, set_method_call_timeout),
		S(sd_bus_slot_unref, slot_unref),
		S(sd_bus_start, start),
		S(sd_bus_wait, wait),
#undef S
	};
	static bool loaded;
	struct sdbus_api api = { 0 };
	const char *e;
	void *h;

	if (loaded)
		return 0;
	/* RTLD_NOW: a library without one of these functions fails here, not mid-call. */
	h = dlopen(SDBUS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		e = dlerror();
		(void) snprintf(err, errlen, "user-cgroup mode needs %s (sd-bus), which cannot be "
				"loaded: %s; install it (Debian: apt-get install libsystemd0)",
				SDBUS_SONAME, e != NULL ? e : "unknown error");
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = dlsym(h, syms[i].name);

		if (p == NULL) {
			(void) snprintf(err, errlen, "user-cgroup mode: %s has no %s (libsystemd "
					"older than 240?)", SDBUS_SONAME, syms[i].name);
			(void) dlclose(h);
			return -ENOSYS;
		}
		*(void **) ((char *) &api + syms[i].off) = p;
	}
	sdbus_api = api;
	loaded = true;
	return 0;
}
