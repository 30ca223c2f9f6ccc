/* SPDX-License-Identifier: MIT */
/* What sandcap needs the C library's name services (NSS) or libsystemd for, in one place
 * (issue 19).
 *
 * sandcap is linked static-pie (SANDCAP_STATIC=1, the default): no dynamic loader at its
 * exec, which was a tenth of every rlimit-mode run.  A static program must never reach NSS
 * beyond /etc's files: glibc loads any other module (systemd, sss, ldap, mdns) with its
 * static dlopen(), and a static getgrnam_r() through libnss_systemd dies on Debian 12
 * (SECURITY.md).  So the code that looks up users, groups or host names, and the sd-bus
 * loader, is linked only into the dynamic twin, sandcap-nss ($(LIBEXECDIR)/sandcap/, or
 * beside sandcap in the build tree); the static sandcap links nss-static.c instead, whose
 * functions hand the whole run over to the twin (nss_handover(): an exec with the same
 * arguments and environment) before sandcap has opened, printed or started anything.  The
 * build fails if glibc's NSS is in the static program at all (Makefile, nss-check).
 *
 * Where a run needs the twin (cmd-run.c decides, from the options and the policy file,
 * before anything else): a policy that names users or groups when the helper cannot decide
 * for sandcap (rlimit mode, sandcap trace); user-cgroup mode (sd-bus); --net proxy (its
 * names are resolved by getaddrinfo()); sandcap doctor and sandcap policy (all of it). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define NSS_HANDOVER_ENV "SANDCAP_NSS_HANDOVER"

/* Remember main()'s argv and environment for nss_handover(), and, in the twin, drop the
 * variable the handover set (it must reach neither the sandbox nor the report). */
void nss_init(char **argv);

/* true in the static sandcap: what needs NSS or sd-bus must be handed over. */
bool nss_static(void);

/* Hand the run to the dynamic twin, saying why in its environment (NSS_HANDOVER_ENV), with
 * fds 0-2 as sandcap found them.  In the twin itself: returns 0 (nothing to do).  In the
 * static sandcap: does not return on success; otherwise returns -errno with why in err
 * (every place the twin was looked for, and the fix): the caller refuses (exit 125, with
 * its report where there is one), never a run that ignores the policy. */
int nss_handover(const char *why, char *err, size_t errlen);

/* For the subcommands that are all the twin's (doctor, policy, trace): hand over, or print
 * why not; returns the exit status. */
int nss_handover_cmd(const char *why);

/* The caller's user name and the names of all its groups (primary first) when
 * want_groups, for policy_resolve(): strdup'ed into *ret_user and names[0..*ret_n).
 * Returns 0; -ENOENT when the uid has no passwd entry (then *ret_user is NULL and names
 * are those of the process's own groups, getgid() and getgroups()); -ENOMEM; -ENOTSUP in
 * the static sandcap (the helper resolves the policy there: cmd-run.c). */
int nss_caller_names(bool want_groups, char **ret_user, char **names, size_t max,
		     size_t *ret_n);

struct addrinfo;

/* getaddrinfo() and freeaddrinfo() for the proxy (frontend/net/proxy.c).  The static
 * sandcap never runs the proxy (--net proxy is handed over): there they fail with
 * EAI_SYSTEM and errno ENOSYS. */
int nss_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		    struct addrinfo **res);
void nss_freeaddrinfo(struct addrinfo *res);
