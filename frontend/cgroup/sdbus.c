/* SPDX-License-Identifier: MIT */
/* sd-bus, loaded from libsystemd.so.0 on first use (sdbus.h says why). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "errbuf.h"
#include "macro.h"
#include "cgroup/sdbus.h"

/* The soname of the ABI the prototypes in <systemd/sd-bus.h> describe: the library the
 * package manager installs, never the development symlink libsystemd.so. */
#define SDBUS_SONAME "libsystemd.so.0"

static struct sdbus api;
static bool loaded;

const struct sdbus *
sdbus_load(char *err, size_t errlen)
{
	/* Each member of struct sdbus is the sd_-prefixed function of its name. */
#define SYM(member)                                           \
	{                                                     \
		"sd_" #member, offsetof(struct sdbus, member) \
	}
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		SYM(bus_new),
		SYM(bus_set_address),
		SYM(bus_set_bus_client),
		SYM(bus_start),
		SYM(bus_set_method_call_timeout),
		SYM(bus_flush_close_unref),
		SYM(bus_match_signal),
		SYM(bus_slot_unref),
		SYM(bus_message_new_method_call),
		SYM(bus_message_append),
		SYM(bus_message_open_container),
		SYM(bus_message_close_container),
		SYM(bus_message_read),
		SYM(bus_message_unref),
		SYM(bus_call),
		SYM(bus_process),
		SYM(bus_wait),
		SYM(bus_get_property_string),
		SYM(bus_error_free),
	};
#undef SYM
	struct sdbus found;
	void *lib;

	_Static_assert(sizeof(syms) / sizeof(syms[0]) * sizeof(void (*)(void)) ==
			       sizeof(struct sdbus),
		       "every member of struct sdbus has its symbol");
	if (loaded)
		return &api;
	/* RTLD_LOCAL: its symbols serve these pointers only.  Never unloaded: a bus of ours
	 * may outlive any one caller. */
	lib = dlopen(SDBUS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		set_err(err, errlen, "needs %s: %s", SDBUS_SONAME, dlerror());
		return NULL;
	}
	for (size_t i = 0; i < ELEMENTSOF(syms); i++) {
		void *f = dlsym(lib, syms[i].name);
		/* dlsym() gives an object pointer, the members are function pointers; the
		 * union converts, and keeps gcc's analyzer from losing track of the value. */
		union {
			void *obj;
			void (*fn)(void);
		} u = { .obj = f };

		if (f == NULL) {
			/* Older than the sd-bus calls this mode makes (systemd 240):
			 * dlerror() names the symbol. */
			set_err(err, errlen, "needs %s: %s", SDBUS_SONAME, dlerror());
			(void) dlclose(lib);
			return NULL;
		}
		memcpy((char *) &found + syms[i].off, &u.fn, sizeof(u.fn));
	}
	api = found;
	loaded = true;
	return &api;
}

void
sdbus_closep(sd_bus **bus)
{
	if (*bus != NULL)
		*bus = api.bus_flush_close_unref(*bus);
}

void
sdbus_message_unrefp(sd_bus_message **m)
{
	if (*m != NULL)
		*m = api.bus_message_unref(*m);
}

void
sdbus_slot_unrefp(sd_bus_slot **slot)
{
	if (*slot != NULL)
		*slot = api.bus_slot_unref(*slot);
}

void
sdbus_error_freep(sd_bus_error *e)
{
	/* An error is only ever set through the library, so without it there is none. */
	if (loaded)
		api.bus_error_free(e);
}
