// SPDX-License-Identifier: GPL-2.0
/* The microstates' names (libexp/mstate_names.h); Solaris's where it has them. */
#include "libexp/mstate_names.h"

const struct exp_mstate_name exp_mstate_names[LWPROF_MS_COUNT] = {
	[LWPROF_MS_USER] = { "user", "user", "USER", "USR", "user",
			     "User CPU Time", "User CPU", "User" },
	[LWPROF_MS_SYSTEM] = { "system", "sys", "SYS", "SYS", "system",
			       "System CPU Time", "System CPU", "System" },
	[LWPROF_MS_TRAP] = { "trap", "trap", "TRAP", "TRP", "trap",
			     "Trap CPU Time", "Trap CPU", "Trap" },
	[LWPROF_MS_TFAULT] = { "tflt", "tflt", "TFLT", "TFL", "textpfault",
			       "Text Page Fault Time", "Text Page Fault",
			       "TextPF" },
	[LWPROF_MS_DFAULT] = { "dflt", "dflt", "DFLT", "DFL", "datapfault",
			       "Data Page Fault Time", "Data Page Fault",
			       "DataPF" },
	[LWPROF_MS_KFAULT] = { "kflt", "kflt", "KFLT", "KFL", "kernelpfault",
			       "Kernel Page Fault Time", "Kernel Page Fault",
			       "KernPF" },
	[LWPROF_MS_USER_LOCK] = { "lock", "lock", "LOCK", "LCK", "lock",
				  "User Lock Time", "User Lock", "Lock" },
	[LWPROF_MS_SLEEP] = { "sleep", "slp", "SLP", "SLP", "sleep",
			      "Sleep Time", "Sleep", "Sleep" },
	[LWPROF_MS_STOPPED] = { "stop", "stop", "STOP", "STP", "stop",
				"Stopped Time", "Stopped", "Stop" },
	[LWPROF_MS_WAIT_CPU] = { "wait", "lat", "LAT", "LAT", "wait",
				 "Wait CPU Time", "Wait CPU", "Wait" },
};
