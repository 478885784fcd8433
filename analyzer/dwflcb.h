/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libdwfl callbacks of the analyzer's sessions: the load objects'
 * (offline, obj.c) and the unwinder's (a process, unwind.c), with one
 * search path for separate debug files.
 */
#ifndef LWPROF_DWFLCB_H
#define LWPROF_DWFLCB_H

#include <elfutils/libdwfl.h>

#include "an.h"

/* NULL: out of memory */
const Dwfl_Callbacks *an_dwfl_offline_cb(struct an *an);
const Dwfl_Callbacks *an_dwfl_proc_cb(struct an *an);
void an_dwfl_cb_free(struct an *an);

#endif
