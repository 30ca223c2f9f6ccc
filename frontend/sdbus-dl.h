/* SPDX-License-Identifier: MIT */
/* libsystemd's sd-bus, loaded with dlopen() when user-cgroup mode first needs it (issue 19).
 *
 * Linked at build time, libsystemd.so.0 pulled six more libraries (libgcrypt, liblzma,
 * libzstd, liblz4, libgpg-error, libcap) into every `sandcap` process: about 40 system
 * calls and 60 page faults of the dynamic loader in every run, also in rlimit and cgroup
 * mode, which never speak D-Bus.  Only usercg.c does; it includes this header instead of
 * <systemd/sd-bus.h> and bus_connect() calls sdbus_load() before the first sd_bus_*()
 * call.  The names below are macros for the pointers sdbus_load() fills (their types are
 * the header's own prototypes, through typeof), so usercg.c reads as plain sd-bus code.
 *
 * The package still depends on libsystemd0 (packaging/debian/control, the RPM spec); where
 * it is missing, user-cgroup mode is unavailable with a reason naming the library, the
 * same way as without a user manager (sandcap doctor shows it). */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

#define SDBUS_SONAME "libsystemd.so.0"

struct sdbus_api {
	typeof(sd_bus_call) *call;
	typeof(sd_bus_error_free) *error_free;
	typeof(sd_bus_flush_close_unref) *flush_close_unref;
	typeof(sd_bus_get_property_string) *get_property_string;
	typeof(sd_bus_match_signal) *match_signal;
	typeof(sd_bus_message_append) *message_append;
	typeof(sd_bus_message_close_container) *message_close_container;
	typeof(sd_bus_message_new_method_call) *message_new_method_call;
	typeof(sd_bus_message_open_container) *message_open_container;
	typeof(sd_bus_message_read) *message_read;
	typeof(sd_bus_message_unref) *message_unref;
	typeof(sd_bus_new) *new_;
	typeof(sd_bus_process) *process;
	typeof(sd_bus_set_address) *set_address;
	typeof(sd_bus_set_bus_client) *set_bus_client;
	typeof(sd_bus_set_method_call_timeout) *set_method_call_timeout;
	typeof(sd_bus_slot_unref) *slot_unref;
	typeof(sd_bus_start) *start;
	typeof(sd_bus_wait) *wait;
};

/* Filled by sdbus_load(); all NULL before it succeeded. */
extern struct sdbus_api sdbus_api;

/* dlopen(libsystemd.so.0) and resolve every function above, once.  0, or -errno with a
 * one-line reason in err naming the library and what to install. */
int sdbus_load(char *err, size_t errlen);

#define sd_bus_call                     (*sdbus_api.call)
#define sd_bus_error_free               (*sdbus_api.error_free)
#define sd_bus_flush_close_unref        (*sdbus_api.flush_close_unref)
#define sd_bus_get_property_string      (*sdbus_api.get_property_string)
#define sd_bus_match_signal             (*sdbus_api.match_signal)
#define sd_bus_message_append           (*sdbus_api.message_append)
#define sd_bus_message_close_container  (*sdbus_api.message_close_container)
#define sd_bus_message_new_method_call  (*sdbus_api.message_new_method_call)
#define sd_bus_message_open_container   (*sdbus_api.message_open_container)
#define sd_bus_message_read             (*sdbus_api.message_read)
#define sd_bus_message_unref            (*sdbus_api.message_unref)
#define sd_bus_new                      (*sdbus_api.new_)
#define sd_bus_process                  (*sdbus_api.process)
#define sd_bus_set_address              (*sdbus_api.set_address)
#define sd_bus_set_bus_client           (*sdbus_api.set_bus_client)
#define sd_bus_set_method_call_timeout  (*sdbus_api.set_method_call_timeout)
#define sd_bus_slot_unref               (*sdbus_api.slot_unref)
#define sd_bus_start                    (*sdbus_api.start)
#define sd_bus_wait                     (*sdbus_api.wait)

/* Cleanup helpers (the header's own sd_bus_*_unrefp would name the linked symbols); safe
 * when the library was never loaded: there is then nothing to free. */
static inline void
sdbus_closep(sd_bus **b)
{
	if (*b != NULL)
		(void) sd_bus_flush_close_unref(*b);
}

static inline void
sdbus_message_unrefp(sd_bus_message **m)
{
	if (*m != NULL)
		(void) sd_bus_message_unref(*m);
}

static inline void
sdbus_slot_unrefp(sd_bus_slot **s)
{
	if (*s != NULL)
		(void) sd_bus_slot_unref(*s);
}

static inline void
sdbus_error_freep(sd_bus_error *e)
{
	if (sdbus_api.error_free != NULL)
		sd_bus_error_free(e);
}
