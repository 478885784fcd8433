/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the two parts of symbols/ that name a JVM's stacks: java.c
 * (methods, code, the frames of a Java stack) and jstacks.c (which
 * sample gets which Java stack).
 */
#ifndef LWPROF_ANALYZER_SYMBOLS_JAVA_H
#define LWPROF_ANALYZER_SYMBOLS_JAVA_H

#include "analyzer/model/java.h"
#include "analyzer/symbols/symbols.h"

/* The trie's node of Java stack s (root to leaf), or UINT32_MAX. */
uint32_t an_java_stack_node(struct an *an, const struct an_jstack *s);

/*
 * The Java stack of a sample whose machine stack's leaf is JIT-compiled
 * code of jvm at time t: its compiled frames from the pc tables (the methods
 * inlined at each pc), under the callers that tick (a stack of the same
 * thread near it) has below the outermost compiled method.  A node, or
 * AN_JAVA_NONE (the leaf is not compiled code, or the tick does not
 * hold that method), or UINT32_MAX out of memory.
 */
uint32_t an_java_jit_node(struct an *an, uint32_t jvm, uint32_t machine,
			  uint64_t t, const struct an_jstack *tick);

/*
 * Machine stack machine of a sample at time t with each frame in
 * compiled code named by the code that held its address at t (not the
 * last compiled there): a node (machine itself where nothing differs),
 * or UINT32_MAX out of memory.  an_java_reused: has any code of jvm
 * been unloaded (else no address was held by two)?
 */
uint32_t an_java_machine_at(struct an *an, uint32_t jvm, uint32_t machine,
			    uint64_t t);
bool an_java_reused(const struct an_java *j, uint32_t jvm);

#endif
