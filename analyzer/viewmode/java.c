// SPDX-License-Identifier: GPL-2.0
/*
 * Java in the view modes (viewmode.h, docs/guide/java.md): user mode
 * shows each sample of a JVM's thread on its Java stack (methods as
 * Java writes them, JStates.cpu(), on their source lines), with
 * <JVM-System> for the JVM's own threads and <no Java callstack
 * recorded> where no Java stack could be had; expert mode adds the
 * native frames a native method called; machine mode is the native
 * stack, its compiled Java code named by method.  The stacks are made
 * when the experiment is loaded (symbols/jstacks.c): here they replace
 * the machine ones.
 */
#include "analyzer/model/java.h"
#include "analyzer/viewmode/viewmode.h"

static int java_open(struct an *an, void **state)
{
	*state = an->java && an->java->user ? an->java : NULL;
	return 0;
}

static int java_rewrite(struct an *an, void *state, enum an_viewmode m,
			size_t i, struct an_vm_stack *s)
{
	struct an_java *j = state;
	uint32_t node = m == AN_VM_EXPERT ? j->expert[i] : j->user[i];

	if (node == an_vm_machine_node(an, i))
		return 0;	/* not a JVM's sample: as it is */
	return an_vm_frames(an, node, s);
}

static void java_close(void *state)
{
}

const struct an_vm_lang an_vm_java = {
	.name = "Java",
	.open = java_open,
	.rewrite = java_rewrite,
	.close = java_close,
};
