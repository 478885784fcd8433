// SPDX-License-Identifier: GPL-2.0
/* A sample record's register set (libexp/sample.h). */
#include "libexp/sample.h"

const char *exp_regs_get(const struct exp_file_header *h, struct exp_regs *r,
			 unsigned int *at)
{
	*at = 32;
	if (!h->e_machine && !h->nr_regs && !h->reg_mask) {
		*r = EXP_REGS_X86_64;	/* 1.0, 1.1 */
		return NULL;
	}
	r->e_machine = h->e_machine;
	r->nr = h->nr_regs;
	r->mask = h->reg_mask;
	if (!r->e_machine)
		return "registers of machine 0";
	*at = 40;
	if ((unsigned int)__builtin_popcountll(r->mask) != r->nr)
		return "register mask and count (byte 34) disagree";
	return NULL;
}

int exp_regs_index(const struct exp_regs *r, unsigned int dwarf)
{
	if (dwarf > 63 || !(r->mask >> dwarf & 1))
		return -1;
	return __builtin_popcountll(r->mask & ((1ULL << dwarf) - 1));
}

const char *exp_regs_name(const struct exp_regs *r, unsigned int i)
{
	static const char *const x86_64[EXP_X86_64_NR_REGS] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
		"r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	unsigned int d;

	if (r->e_machine != EXP_EM_X86_64)
		return NULL;
	for (d = 0; d < EXP_X86_64_NR_REGS; d++)
		if (r->mask >> d & 1 && !i--)
			return x86_64[d];
	return NULL;
}
