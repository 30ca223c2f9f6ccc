/* SPDX-License-Identifier: MIT */
/* sd-bus, from libsystemd.so.0 loaded when user-cgroup mode first needs it (sdbus.c).
 *
 * Only user-cgroup mode talks to systemd.  Linked at build time, libsystemd and the
 * libraries it needs in turn (libgcrypt, liblzma, libzstd, liblz4, libcap, libgpg-error) would
 * be mapped and relocated by the dynamic loader at the start of every sandcap, rlimit and
 * helper mode alike: the larger part of sandcap's start-up (bench/RESULTS.md).  Loaded
 * here, they cost only the runs that ask the user manager for a scope; where the library
 * is missing, that mode is refused with the reason, and sandcap doctor says so.
 *
 * The pointers carry the types of the functions declared by <systemd/sd-bus.h>, so a call
 * through them is checked by the compiler as a direct call would be. */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

struct sdbus {
	typeof(sd_bus_new) *bus_new;
	typeof(sd_bus_set_address) *bus_set_address;
	typeof(sd_bus_set_bus_client) *bus_set_bus_client;
	typeof(sd_bus_start) *bus_start;
	typeof(sd_bus_set_method_call_timeout) *bus_set_method_call_timeout;
	typeof(sd_bus_flush_close_unref) *bus_flush_close_unref;
	typeof(sd_bus_match_signal) *bus_match_signal;
	typeof(sd_bus_slot_unref) *bus_slot_unref;
	typeof(sd_bus_message_new_method_call) *bus_message_new_method_call;
	typeof(sd_bus_message_append) *bus_message_append;
	typeof(sd_bus_message_open_container) *bus_message_open_container;
	typeof(sd_bus_message_close_container) *bus_message_close_container;
	typeof(sd_bus_message_read) *bus_message_read;
	typeof(sd_bus_message_unref) *bus_message_unref;
	typeof(sd_bus_call) *bus_call;
	typeof(sd_bus_process) *bus_process;
	typeof(sd_bus_wait) *bus_wait;
	typeof(sd_bus_get_property_string) *bus_get_property_string;
	typeof(sd_bus_error_free) *bus_error_free;
};

/* The functions, loading libsystemd.so.0 on the first call; NULL when it cannot be loaded
 * or lacks one of them, with "needs libsystemd.so.0: <the loader's reason>" in err (the
 * caller adds SDBUS_FIX).  The library stays loaded for the life of the process. */
const struct sdbus *sdbus_load(char *err, size_t errlen);

/* What to do about it (Debian's package name, then Fedora's). */
#define SDBUS_FIX "install libsystemd0 (systemd-libs)"

/* Cleanup functions for _cleanup_(): each does nothing for NULL (or an unset error). */
void sdbus_closep(sd_bus **bus);
void sdbus_message_unrefp(sd_bus_message **m);
void sdbus_slot_unrefp(sd_bus_slot **slot);
void sdbus_error_freep(sd_bus_error *e);
