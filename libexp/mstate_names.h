/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ten microstates' names (uapi LWPROF_MS_*), in every form a command
 * shows them: one row per microstate, indexed by LWPROF_MS_*.
 */
#ifndef LWPROF_LIBEXP_MSTATE_NAMES_H
#define LWPROF_LIBEXP_MSTATE_NAMES_H

#include "lwprof.h"

struct exp_mstate_name {
	const char *name;	/* "tflt": dump, usage.txt, gen_exp scripts */
	const char *ptime;	/* "tflt", "slp", "lat": ptime -m rows */
	const char *ptime_col;	/* "TFLT": ptime -L columns */
	const char *top;	/* "TFL": top's columns (prstat -mL) */
	const char *keyword;	/* "textpfault": er_print's metric keyword */
	const char *title;	/* "Text Page Fault Time": its metric title */
	const char *label;	/* "Text Page Fault": print -statistics, -header */
	const char *brief;	/* "TextPF": print -sample_list's columns */
};

extern const struct exp_mstate_name exp_mstate_names[LWPROF_MS_COUNT];

#endif
