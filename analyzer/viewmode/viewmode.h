/* SPDX-License-Identifier: GPL-2.0 */
/*
 * View modes (docs/design/analyzer.md, "View modes"): the call stacks of
 * the samples as the programmer wrote them (user), with the compiler's
 * and the runtimes' own functions shown (expert), or as the machine ran
 * them (machine).  The machine stacks are the ones loaded; a mode other
 * than machine rewrites every sample's stack (an->s.stack) through the
 * languages that claim the experiments (OpenMP: omp.c), so that every
 * view and every export reads the mode's stacks without knowing it.
 * Experiments no language claims look the same in every mode.
 *
 * It sits between symbols/ (it names frames) and report/: the command
 * sets the mode after loading (user by default) and at each `viewmode`
 * command.
 */
#ifndef LWPROF_ANALYZER_VIEWMODE_H
#define LWPROF_ANALYZER_VIEWMODE_H

#include "analyzer/model/model.h"

enum an_viewmode {
	AN_VM_USER,	/* the program's own stacks: runtimes' frames folded away */
	AN_VM_EXPERT,	/* ... with the compiler's outlined functions shown */
	AN_VM_MACHINE,	/* the native stacks, as recorded */
	AN_VM_COUNT
};

/* "user" ... -> the mode, or -1 */
int an_viewmode_parse(const char *s);
const char *an_viewmode_name(enum an_viewmode m);

/*
 * Every sample's stack in mode m (0, or -ENOMEM with the message in
 * an->run->err).  The first call claims the languages: call it after
 * an_finish(), once every sample is in the table.
 */
int an_viewmode_set(struct an *an, enum an_viewmode m);
enum an_viewmode an_viewmode_get(const struct an *an);
/* the languages that claimed the experiments, "OpenMP", or "" */
const char *an_viewmode_langs(const struct an *an, char *buf, size_t len);
void an_viewmode_free(struct an *an);

/*
 * ---- for a language (viewmode/LANG.c, a row of langs[] in viewmode.c) ----
 *
 * A stack being rewritten: pcs (an->pcs ids), root first.  A language
 * edits it in place: drops, replaces or adds frames.
 */
struct an_vm_stack {
	uint32_t *pc;
	uint32_t n, cap;
};

int an_vm_push(struct an_vm_stack *s, uint32_t pc);	/* 0 or -ENOMEM */

/*
 * The pc of pseudo function name ("<OMP-idle>") in pseudo object obj
 * ("<OpenMP>"), made on first use; UINT32_MAX: out of memory.
 */
uint32_t an_vm_pseudo_pc(struct an *an, const char *obj, const char *name);

/* The machine stack of sample i (a node), whatever the mode. */
uint32_t an_vm_machine_node(const struct an *an, size_t i);

/* Node ids root first into s (its machine frames) */
int an_vm_frames(struct an *an, uint32_t node, struct an_vm_stack *s);

struct an_vm_lang {
	const char *name;	/* "OpenMP": -header says which apply */
	/*
	 * Does it apply to the experiments loaded?  0 and *state set (its
	 * own data, or NULL: it does not apply), or -ENOMEM.
	 */
	int (*open)(struct an *an, void **state);
	/*
	 * Sample i's stack s (machine frames, or as the languages before it
	 * left them) in mode m (user or expert): 0 or -ENOMEM.
	 */
	int (*rewrite)(struct an *an, void *state, enum an_viewmode m,
		       size_t i, struct an_vm_stack *s);
	void (*close)(void *state);
};

extern const struct an_vm_lang an_vm_omp;

/*
 * Is pc's frame the program's own (not a runtime's, the system's or a
 * pseudo-function)?  outlined: an outlined body of OpenMP counts too.
 */
bool an_vm_omp_program(struct an *an, uint32_t pc, bool outlined);
extern const struct an_vm_lang an_vm_java;

#endif
