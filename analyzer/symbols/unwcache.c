// SPDX-License-Identifier: GPL-2.0
/*
 * A per-pc cache of DWARF CFI steps.  libdwfl looks up and interprets the
 * CFI again for every frame of every sample; most samples of a profile hit
 * a few hundred pcs, so here each (address space, lookup pc) gets its
 * rules once, from the same tables libdwfl uses (the module's .eh_frame,
 * then its .debug_frame, via dwarf_cfi_addrframe): the CFA as register +
 * offset (or as a short DWARF expression of the registers, such as the
 * PLT's rsp + 8 + ((rip & 15) >= 11 ? 8 : 0)), and for each of the 17
 * x86_64 DWARF registers one of undefined, same value, saved at CFA + N,
 * CFA + N, or another register.  A walk
 * applies them to the sample's registers and stack copy exactly as
 * libdwfl's frame_unwind would: the lookup pc is the pc for the first
 * frame and the return address - 1 above it; an unset register stays
 * unset; the walk ends where the return address is undefined, unreadable
 * or 0.  Whatever the rules cannot say (no module or no FDE, where libdwfl
 * would try the frame-pointer heuristic; a register expression; a CFA
 * expression with branches, division or sized loads; a signal frame; another return address column) marks the pc, and the
 * caller unwinds that sample with libdwfl itself.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/symbols/internal.h"

/* ---- the sample's memory (internal.h) ---- */

/* Memory outside the stack copy: the mapped file's bytes (text, rodata). */
static bool file_read(struct unw *u, uint64_t addr, uint64_t *val)
{
	struct an_as *a = u->as;
	size_t i;

	for (i = 0; i < a->maps.n; i++) {
		struct an_map *m = &AN_VEC(a->maps, struct an_map, i);
		struct an_obj *o;

		if (addr < m->start || addr + 8 > m->end)
			continue;
		o = &AN_VEC(u->an->objs, struct an_obj, m->obj);
		if (o->fd < 0)
			return false;
		return pread(o->fd, val, 8, addr - m->start + m->pgoff) == 8;
	}
	return false;
}

bool unw_read(struct unw *u, uint64_t addr, uint64_t *val)
{
	/* no addr + 8: an address near 2^64 (a garbage CFA) would wrap */
	if (addr >= u->sp && u->stack_size >= 8 &&
	    addr - u->sp <= u->stack_size - 8) {
		memcpy(val, u->stack + (addr - u->sp), 8);
		return true;
	}
	if (file_read(u, addr, val))
		return true;
	/* the stack goes on above a whole copy: the walk is cut, not done */
	if (u->copy_full && addr >= u->sp && addr - u->sp >= u->stack_size)
		u->cut = true;
	return false;
}

/* ---- the cache ---- */

#define NREG LWPROF_NR_REGS
#define RA LWPROF_REG_IP

enum { R_UNSET, R_SAME, R_AT_CFA, R_CFA, R_REG };

#define CFA_OPS 16

struct cfa_op {
	uint8_t atom;
	uint64_t n1, n2;
};

struct step {
	uint64_t pc;
	uint32_t as;
	uint8_t libdwfl;	/* the cache cannot express it */
	uint8_t cfa_reg;
	uint8_t kind[NREG];
	uint8_t reg[NREG];	/* R_REG: the source register */
	int64_t cfa_off;
	int64_t off[NREG];	/* R_AT_CFA, R_CFA: N */
	uint8_t cfa_nops;	/* else the CFA is this expression */
	struct cfa_op cfa_ops[CFA_OPS];
};

struct an_ucache {
	struct an_vec steps;	/* struct step */
	struct an_htab h;
	unsigned long lookups;
};

struct an_ucache *an_ucache_new(void)
{
	struct an_ucache *c = calloc(1, sizeof(*c));

	if (c)
		c->steps.esz = sizeof(struct step);
	return c;
}

void an_ucache_free(struct an_ucache *c)
{
	if (!c)
		return;
	free(c->steps.p);
	an_htab_free(&c->h);
	free(c);
}

void an_ucache_counts(struct an_ucache *c, unsigned long *steps,
		      unsigned long *lookups)
{
	*steps = c->steps.n;
	*lookups = c->lookups;
}

/* One register's rule, as dwarf_frame_register states it; false: none. */
static bool reg_rule(Dwarf_Frame *fr, int r, struct step *s)
{
	Dwarf_Op mem[3], *ops;
	size_t nops, i = 0;

	if (dwarf_frame_register(fr, r, mem, &ops, &nops)) {
		s->kind[r] = R_UNSET;	/* libdwfl leaves it unset */
		return true;
	}
	if (!nops) {
		/* ops == mem: undefined; NULL: same value; else invalid */
		s->kind[r] = ops == NULL ? R_SAME : R_UNSET;
		return true;
	}
	if (ops[0].atom == DW_OP_regx && nops == 1 && ops[0].number < NREG) {
		s->kind[r] = R_REG;
		s->reg[r] = ops[0].number;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	s->off[r] = 0;
	s->kind[r] = R_AT_CFA;
	i = 1;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		s->off[r] = (int64_t)ops[i++].number;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		s->kind[r] = R_CFA;
		i++;
	}
	return i == nops;
}

/* A register operand of a CFA expression: 0..16, else -1. */
static int op_reg(const Dwarf_Op *op)
{
	uint64_t r = op->number;

	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		r = op->atom - DW_OP_breg0;
	else if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		r = op->atom - DW_OP_reg0;
	return r < NREG ? (int)r : -1;
}

static bool op_known(const Dwarf_Op *op)
{
	switch (op->atom) {
	case DW_OP_lit0 ... DW_OP_lit31:
	case DW_OP_const1u ... DW_OP_consts:
	case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_pick:
	case DW_OP_swap: case DW_OP_rot: case DW_OP_deref: case DW_OP_nop:
	case DW_OP_abs: case DW_OP_neg: case DW_OP_not:
	case DW_OP_plus_uconst: case DW_OP_plus: case DW_OP_minus:
	case DW_OP_mul: case DW_OP_and: case DW_OP_or: case DW_OP_xor:
	case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
	case DW_OP_le: case DW_OP_ge: case DW_OP_eq: case DW_OP_lt:
	case DW_OP_gt: case DW_OP_ne:
		return true;
	case DW_OP_breg0 ... DW_OP_breg31: case DW_OP_bregx:
	case DW_OP_reg0 ... DW_OP_reg31: case DW_OP_regx:
		return op_reg(op) >= 0;
	}
	return false;	/* branches, division, sized loads: libdwfl's */
}

/* The CFA's rule: register + offset, or an expression this file can run. */
static bool cfa_rule(const Dwarf_Op *ops, size_t nops, struct step *s)
{
	size_t i;

	if (nops == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < NREG) {
		s->cfa_reg = ops[0].number;
		s->cfa_off = (int64_t)ops[0].number2;
		return true;
	}
	if (!nops || nops > CFA_OPS)
		return false;
	for (i = 0; i < nops; i++) {
		if (!op_known(&ops[i]))
			return false;
		s->cfa_ops[i].atom = ops[i].atom;
		s->cfa_ops[i].n1 = ops[i].number;
		s->cfa_ops[i].n2 = ops[i].number2;
		if (op_reg(&ops[i]) < 0 || ops[i].atom == DW_OP_bregx)
			continue;
		/* registers: n1 the register, n2 what is added to it */
		s->cfa_ops[i].n1 = op_reg(&ops[i]);
		s->cfa_ops[i].n2 = ops[i].atom >= DW_OP_breg0 &&
				   ops[i].atom <= DW_OP_breg31 ? ops[i].number : 0;
	}
	s->cfa_nops = nops;
	return true;
}

/* Relational operators compare signed, as libdwfl's evaluator does. */
static uint64_t binop(uint8_t atom, uint64_t a, uint64_t b)
{
	switch (atom) {
	case DW_OP_plus: return a + b;
	case DW_OP_minus: return a - b;
	case DW_OP_mul: return a * b;
	case DW_OP_and: return a & b;
	case DW_OP_or: return a | b;
	case DW_OP_xor: return a ^ b;
	case DW_OP_shl: return a << (b & 63);
	case DW_OP_shr: return a >> (b & 63);
	case DW_OP_shra: return (uint64_t)((int64_t)a >> (b & 63));
	case DW_OP_le: return (int64_t)a <= (int64_t)b;
	case DW_OP_ge: return (int64_t)a >= (int64_t)b;
	case DW_OP_eq: return a == b;
	case DW_OP_lt: return (int64_t)a < (int64_t)b;
	case DW_OP_gt: return (int64_t)a > (int64_t)b;
	default: return a != b;	/* DW_OP_ne */
	}
}

/*
 * Run the CFA expression on the frame's registers (a stack machine: no op
 * pushes more than one value); false: a register unset, memory
 * unreadable or the stack short, so the CFA is unknown.
 */
static bool cfa_eval(const struct step *s, struct unw *u, const uint64_t *regs,
		     uint32_t set, uint64_t *cfa)
{
	uint64_t st[CFA_OPS + 1], a, b;
	unsigned int n = 0, i;

	for (i = 0; i < s->cfa_nops; i++) {
		const struct cfa_op *op = &s->cfa_ops[i];
		uint8_t at = op->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			st[n++] = at - DW_OP_lit0;
			continue;
		}
		if ((at >= DW_OP_breg0 && at <= DW_OP_breg31) || at == DW_OP_bregx ||
		    (at >= DW_OP_reg0 && at <= DW_OP_reg31) || at == DW_OP_regx) {
			if (!(set & 1u << op->n1))
				return false;
			st[n++] = regs[op->n1] + op->n2;
			continue;
		}
		switch (at) {
		case DW_OP_const1u ... DW_OP_consts:
			st[n++] = op->n1;
			continue;
		case DW_OP_nop:
			continue;
		case DW_OP_pick:
			if (op->n1 >= n)
				return false;
			a = st[n - 1 - op->n1];
			st[n++] = a;
			continue;
		}
		if (!n)
			return false;
		a = st[n - 1];
		switch (at) {
		case DW_OP_dup:
			st[n++] = a;
			continue;
		case DW_OP_drop:
			n--;
			continue;
		case DW_OP_deref:
			if (!unw_read(u, a, &st[n - 1]))
				return false;
			continue;
		case DW_OP_abs:
			st[n - 1] = (int64_t)a < 0 ? -a : a;
			continue;
		case DW_OP_neg:
			st[n - 1] = -a;
			continue;
		case DW_OP_not:
			st[n - 1] = ~a;
			continue;
		case DW_OP_plus_uconst:
			st[n - 1] = a + op->n1;
			continue;
		}
		if (n < 2)
			return false;
		b = st[n - 2];
		if (at == DW_OP_over) {
			st[n++] = b;
		} else if (at == DW_OP_swap) {
			st[n - 1] = b;
			st[n - 2] = a;
		} else if (at == DW_OP_rot) {
			if (n < 3)
				return false;
			st[n - 1] = b;
			st[n - 2] = st[n - 3];
			st[n - 3] = a;
		} else {
			st[n - 2] = binop(at, b, a);
			n--;
		}
	}
	if (!n)
		return false;
	*cfa = st[n - 1];
	return true;
}

/* The rules of one CFI table at pc; 1: no FDE there. */
static int cfi_step(Dwarf_CFI *cfi, uint64_t pc, struct step *s)
{
	Dwarf_Frame *fr;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	bool sig;
	int r, ra;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &fr))
		return 1;
	ra = dwarf_frame_info(fr, &start, &end, &sig);
	s->libdwfl = 1;
	if (ra != RA || sig || dwarf_frame_cfa(fr, &ops, &nops) ||
	    !cfa_rule(ops, nops, s))
		goto out;
	for (r = 0; r < NREG; r++)
		if (!reg_rule(fr, r, s))
			goto out;
	s->libdwfl = 0;
out:
	free(fr);
	return 0;
}

/* What libdwfl's __libdwfl_frame_unwind would use at this lookup pc. */
static void make_step(Dwfl *d, uint64_t pc, struct step *s)
{
	Dwfl_Module *m = dwfl_addrmodule(d, pc);
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;

	s->libdwfl = 1;
	if (!m)
		return;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi_step(cfi, pc - bias, s))
		return;
	cfi = dwfl_module_dwarf_cfi(m, &bias);
	cfi_step(cfi, pc - bias, s);
}

struct key {
	uint64_t pc;
	uint32_t as;
};

static bool step_eq(void *ctx, uint32_t id, const void *k)
{
	const struct step *s = &AN_VEC(*(struct an_vec *)ctx, struct step, id);
	const struct key *key = k;

	return s->pc == key->pc && s->as == key->as;
}

static const struct step *get_step(struct an_ucache *c, Dwfl *d, uint32_t as,
				   uint64_t pc)
{
	struct key k = { pc, as };
	uint64_t h = an_mix(an_mix(0x5c0fe, as), pc);
	uint32_t id = an_htab_find(&c->h, h, step_eq, &c->steps, &k);
	struct step *s;

	c->lookups++;
	if (id != UINT32_MAX)
		return &AN_VEC(c->steps, struct step, id);
	s = an_vec_push(&c->steps);
	if (!s)
		return NULL;
	s->pc = pc;
	s->as = as;
	make_step(d, pc, s);
	if (an_htab_add(&c->h, h, c->steps.n - 1)) {
		c->steps.n--;
		return NULL;
	}
	return s;
}

int an_ucache_walk(struct an_ucache *c, Dwfl *d, uint32_t as, struct unw *u)
{
	uint64_t regs[NREG], nregs[NREG];
	uint32_t set = (1u << NREG) - 1, nset;
	uint64_t pc = u->regs[RA], cfa = 0;
	bool initial = true;

	memcpy(regs, u->regs, sizeof(regs));
	u->n = 0;
	while (pc && u->n < UNW_MAX) {
		const struct step *s;
		bool have_cfa;
		uint64_t v;
		int r;

		u->ips[u->n++] = pc;
		s = get_step(c, d, as, initial ? pc : pc - 1);
		if (!s)
			return -ENOMEM;
		if (s->libdwfl)
			return 1;
		if (s->cfa_nops) {
			have_cfa = cfa_eval(s, u, regs, set, &cfa);
		} else {
			have_cfa = set & 1u << s->cfa_reg;
			cfa = regs[s->cfa_reg] + (uint64_t)s->cfa_off;
		}
		nset = 0;
		for (r = 0; r < NREG; r++) {
			switch (s->kind[r]) {
			case R_UNSET:
				continue;
			case R_SAME:
				if (!(set & 1u << r))
					continue;
				v = regs[r];
				break;
			case R_REG:
				if (!(set & 1u << s->reg[r]))
					continue;
				v = regs[s->reg[r]];
				break;
			default:
				if (!have_cfa)
					continue;
				v = cfa + (uint64_t)s->off[r];
				if (s->kind[r] == R_AT_CFA && !unw_read(u, v, &v))
					continue;
				break;
			}
			nregs[r] = v;
			nset |= 1u << r;
		}
		/* the return address: undefined, unreadable or 0 ends it */
		if (!(nset & 1u << RA))
			return 0;
		pc = nregs[RA];
		memcpy(regs, nregs, sizeof(regs));
		set = nset;
		initial = false;
	}
	return 0;
}
