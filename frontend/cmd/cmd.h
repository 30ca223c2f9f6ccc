/* SPDX-License-Identifier: MIT */
/* Subcommands of sandcap.  Each returns the process exit status (0..255). */
#pragma once

#include "exit.h"

int cmd_run(int argc, char **argv);     /* frontend/cmd/run.c */
int cmd_trace(int argc, char **argv);   /* frontend/cmd/trace.c */
int cmd_policy(int argc, char **argv);  /* frontend/cmd/policy.c */
int cmd_doctor(int argc, char **argv);  /* frontend/cmd/doctor.c */
int cmd_profile(int argc, char **argv); /* frontend/cmd/profile.c */
int cmd_ps(int argc, char **argv);      /* frontend/cmd/ps.c */
int cmd_kill(int argc, char **argv);    /* frontend/cmd/kill.c */
int cmd_session(int argc, char **argv); /* frontend/cmd/session.c */
