// SPDX-License-Identifier: GPL-2.0
/* The cpu.N.rec file header (libexp/format.h). */
#include <stdio.h>
#include <string.h>

#include "lwprof.h"
#include "libexp/format.h"

_Static_assert(EXP_X86_64_NR_REGS == LWPROF_NR_REGS, "uapi's register set");

void exp_file_header_init(struct exp_file_header *h, __u32 cpu,
			  __u32 abi_major, __u32 abi_minor)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, EXP_FILE_MAGIC, sizeof(h->magic));
	h->major = EXP_FILE_MAJOR;
	h->minor = EXP_FILE_MINOR;
	h->byte_order = EXP_FILE_LE;
	h->cpu = cpu;
	h->abi_major = abi_major;
	h->abi_minor = abi_minor;
	h->e_machine = EXP_EM_X86_64;	/* the module's samples: uapi's set */
	h->nr_regs = EXP_X86_64_NR_REGS;
	h->reg_mask = EXP_X86_64_REG_MASK;
}

const char *exp_stop_why(unsigned int reason)
{
	static const char *const why[LWPROF_STOP_MAX + 1] = {
		[LWPROF_STOP_EXEC] = "it exec'd a set-ID, file-capability or secure-mode program",
		[LWPROF_STOP_CREDS] = "its credentials changed: the recording user may not trace it",
		[LWPROF_STOP_DUMPABLE] = "it made itself non-dumpable",
		[LWPROF_STOP_REVOKED] = "a privileged session or another user took it",
	};

	return reason <= LWPROF_STOP_MAX && why[reason] ? why[reason] : "?";
}

int exp_trace_file_name(const char *name)
{
	unsigned int pid, gen;
	int n = 0;

	if (sscanf(name, EXP_TRACE_FMT "%n", &pid, &n) == 1 && n && !name[n])
		return 1;
	n = 0;
	return sscanf(name, EXP_TRACE_FMT2 "%n", &pid, &gen, &n) == 2 && n &&
	       !name[n];
}
