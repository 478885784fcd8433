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

#endif
