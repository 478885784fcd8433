/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liblwprof_jvmti.so, the JVMTI agent collect -j on loads into a JVM
 * (-agentpath, docs/guide/java.md): the private header of its parts.
 *
 * - agent.c: Agent_OnLoad, the options, the capabilities and events, the
 *   VM's start and death;
 * - out.c: the java.PID.rec file, a shared buffer for what any thread
 *   writes outside a signal, and each Java thread's own buffer, the one
 *   its profiling signal writes into;
 * - methods.c: methods (names, classes, source files, line tables) at
 *   class preparation, compiled code with its inlining, generated stubs;
 * - tick.c: the per-thread CPU-time timer and its signal, which takes the
 *   Java stack with AsyncGetCallTrace;
 * - block.c: the Java stack where a thread blocks (sleep, park, wait, a
 *   contended monitor, a stream read) and the end of the block.
 *
 * Records are libexp/java.h's.  Times are CLOCK_MONOTONIC, the
 * recorder's clock.
 */
#ifndef LWPROF_JVMTI_AGENT_H
#define LWPROF_JVMTI_AGENT_H

#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "libexp/java.h"

#define JA_TLS		__attribute__((tls_model("initial-exec")))
#define JA_DEPTH	128	/* Java frames kept of a stack */

/* The settings from the agent's options (agent.c). */
struct ja_conf {
	uint64_t interval_ns;	/* clock ticks of thread CPU time; 0: none */
	bool blocks;		/* the stacks where threads block */
	bool monitors;		/* contended monitors (the events cost) */
};

/* A Java thread's own state: its buffer and timer (out.c, tick.c). */
struct ja_thread {
	JNIEnv *env;
	uint32_t tid;
	int busy;		/* its buffer is being written: a tick drops */
	bool dead;		/* flushed at the VM's death: write no more */
	bool has_timer;
	bool retried;		/* tick.c: the last tick failed, tried again */
	timer_t timer;
	char *buf;
	size_t len;
	struct ja_thread *next;	/* every thread's, for the VM's death */
};

extern struct ja_conf ja_conf;
extern jvmtiEnv *ja_jvmti;
extern uint32_t ja_pid;
extern __thread struct ja_thread *ja_self JA_TLS;

static inline uint64_t ja_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* out.c */
int ja_out_open(const char *dir);
/* Write a whole record (size a multiple of 8) through the shared buffer. */
void ja_put(const void *rec, size_t size);
/*
 * The calling thread's buffer: a record of at most size bytes to fill,
 * or NULL (no buffer, busy, dead); ja_commit(size) ends it.
 */
void *ja_reserve(struct ja_thread *t, size_t size);
void ja_commit(struct ja_thread *t, size_t size);
/* A thread's state: made (not in a signal), and ended (flushed, freed). */
struct ja_thread *ja_thread_new(JNIEnv *env);
void ja_thread_end(struct ja_thread *t);
/* The VM dies: every thread's buffer and the shared one written out. */
void ja_out_close(void);
/* Records dropped (a tick while its thread's buffer was being written),
 * and the ticks taken (tick.c). */
extern unsigned long ja_dropped, ja_ticks;

/* Write a Java stack of the calling thread: what (exp_jwhat), flags. */
void ja_put_stack(struct ja_thread *t, uint16_t what, uint16_t flags,
		  const struct exp_jframe *f, int n, int err);

/* methods.c */
void ja_class_methods(jvmtiEnv *jvmti, jclass cls);
void ja_loaded_classes(jvmtiEnv *jvmti);
void JNICALL ja_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
				 jclass cls);
void JNICALL ja_on_compiled_load(jvmtiEnv *jvmti, jmethodID m, jint size,
				 const void *addr, jint map_len,
				 const jvmtiAddrLocationMap *map,
				 const void *info);
void JNICALL ja_on_compiled_unload(jvmtiEnv *jvmti, jmethodID m,
				   const void *addr);
void JNICALL ja_on_dynamic_code(jvmtiEnv *jvmti, const char *name,
				const void *addr, jint len);

/* tick.c */
int ja_tick_init(void);
void ja_tick_start(struct ja_thread *t);
void ja_tick_stop(struct ja_thread *t);

/* block.c */
void JNICALL ja_on_native_bind(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
			       jmethodID m, void *addr, void **new_addr);
/* At the VM's start: the natives bound before it, bound to their wrappers. */
void ja_rebind_early(jvmtiEnv *jvmti, JNIEnv *env);
void JNICALL ja_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
				   jobject obj);
void JNICALL ja_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *env,
				     jthread thr, jobject obj);

#endif
