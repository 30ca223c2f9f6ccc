/* SPDX-License-Identifier: MIT */
/* Emptying user-controlled trees without following anything in them (ws_clean.c). */
#pragma once

/* tree_empty() then ws_shrink(), a few rounds.  0: empty and shrunk. */
int ws_empty_and_shrink(int rootfd);
