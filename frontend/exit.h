/* SPDX-License-Identifier: MIT */
/* sandcap's own exit codes (sandcap(1), EXIT STATUS): every layer may return them. */
#pragma once

#define SC_EXIT_TIMEOUT  124
#define SC_EXIT_FAILURE  125 /* sandcap itself failed or refused */
#define SC_EXIT_NOEXEC   126 /* command found but not executable */
#define SC_EXIT_NOTFOUND 127 /* command not found */
