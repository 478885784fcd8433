// SPDX-License-Identifier: GPL-2.0
/*
 * Where Java threads block (agent.h): the native methods that wait
 * (Thread.sleep, Unsafe.park under LockSupport.park*, Object.wait, the
 * reads of streams and channels) are bound to wrappers here as the VM
 * binds them (NativeMethodBind); a wrapper writes the thread's Java stack
 * (GetStackTrace, the thread is in native code), calls the VM's function
 * and writes the end of the block.  A contended monitor enter comes from
 * its JVMTI events.  The analyzer gives the time a thread spends off CPU
 * inside such a block to the stack where it blocked.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static void (JNICALL *real_sleep)(JNIEnv *, jclass, jlong);
static void (JNICALL *real_park)(JNIEnv *, jobject, jboolean, jlong);
static void (JNICALL *real_wait)(JNIEnv *, jobject, jlong);
static jint (JNICALL *real_read)(JNIEnv *, jobject, jbyteArray, jint, jint);
static jint (JNICALL *real_read0)(JNIEnv *, jclass, jobject, jlong, jint);

static void begin(uint16_t what)
{
	jvmtiFrameInfo fi[JA_DEPTH];
	struct exp_jframe f[JA_DEPTH];
	jint n = 0, i;

	if (!ja_self)
		return;
	if ((*ja_jvmti)->GetStackTrace(ja_jvmti, NULL, 0, JA_DEPTH, fi, &n) !=
	    JVMTI_ERROR_NONE)
		n = 0;
	for (i = 0; i < n; i++) {
		f[i].method = (uintptr_t)fi[i].method;
		f[i].bci = fi[i].location;
		f[i].pad0 = 0;
	}
	ja_put_stack(ja_self, what, 0, f, n, -1);
}

static void end(uint16_t what)
{
	if (ja_self)
		ja_put_stack(ja_self, what, EXP_JS_END, NULL, 0, 0);
}

static void JNICALL w_sleep(JNIEnv *env, jclass c, jlong ms)
{
	begin(EXP_JW_SLEEP);
	real_sleep(env, c, ms);
	end(EXP_JW_SLEEP);
}

static void JNICALL w_park(JNIEnv *env, jobject u, jboolean abs, jlong t)
{
	begin(EXP_JW_PARK);
	real_park(env, u, abs, t);
	end(EXP_JW_PARK);
}

static void JNICALL w_wait(JNIEnv *env, jobject o, jlong ms)
{
	begin(EXP_JW_WAIT);
	real_wait(env, o, ms);
	end(EXP_JW_WAIT);
}

static jint JNICALL w_read(JNIEnv *env, jobject s, jbyteArray b, jint off,
			   jint len)
{
	jint r;

	begin(EXP_JW_READ);
	r = real_read(env, s, b, off, len);
	end(EXP_JW_READ);
	return r;
}

static jint JNICALL w_read0(JNIEnv *env, jclass c, jobject fd, jlong addr,
			    jint len)
{
	jint r;

	begin(EXP_JW_READ);
	r = real_read0(env, c, fd, addr, len);
	end(EXP_JW_READ);
	return r;
}

/* The natives wrapped: class, method, signature, wrapper, the VM's. */
static const struct wrap {
	const char *cls, *name, *sig;
	void *wrapper;
	void **real;
} wraps[] = {
	{ "Ljava/lang/Thread;", "sleep", "(J)V", w_sleep, (void **)&real_sleep },
	{ "Ljdk/internal/misc/Unsafe;", "park", "(ZJ)V", w_park, (void **)&real_park },
	{ "Ljava/lang/Object;", "wait", "(J)V", w_wait, (void **)&real_wait },
	{ "Ljava/io/FileInputStream;", "readBytes", "([BII)I", w_read, (void **)&real_read },
	{ "Lsun/nio/ch/FileDispatcherImpl;", "read0",
	  "(Ljava/io/FileDescriptor;JI)I", w_read0, (void **)&real_read0 },
};

#define NWRAPS	(sizeof(wraps) / sizeof(wraps[0]))

/*
 * Natives bound before the VM could name their methods (the primordial
 * phase: Thread's and Unsafe's registerNatives): kept, and bound again
 * to the wrapper when it starts (ja_rebind_early).  HotSpot warns of
 * such a rebinding (jni+resolve), which collect's -Xlog option silences.
 */
#define EARLY_MAX	1024	/* a JDK 17 binds about 70 */
static struct { jmethodID m; void *addr; } early[EARLY_MAX];
static unsigned int nearly;

/* Which wrap is method m (or NWRAPS); cls: its class, if wanted. */
static size_t find_wrap(jvmtiEnv *jvmti, jmethodID m, jclass *clsp, jvmtiError *e)
{
	char *name = NULL, *sig = NULL, *csig = NULL;
	jclass cls;
	size_t i;

	*e = (*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL);
	if (*e != JVMTI_ERROR_NONE)
		return NWRAPS;
	for (i = 0; i < NWRAPS; i++)
		if (!strcmp(name, wraps[i].name) && !strcmp(sig, wraps[i].sig))
			break;
	if (i < NWRAPS &&
	    ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) != JVMTI_ERROR_NONE ||
	     (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) != JVMTI_ERROR_NONE ||
	     strcmp(csig, wraps[i].cls)))
		i = NWRAPS;
	else if (i < NWRAPS && clsp)
		*clsp = cls;
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (csig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	return i;
}

void JNICALL ja_on_native_bind(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
			       jmethodID m, void *addr, void **new_addr)
{
	jvmtiError e;
	size_t i;

	for (i = 0; i < NWRAPS; i++)
		if (addr == wraps[i].wrapper)
			return;	/* our own rebinding */
	i = find_wrap(jvmti, m, NULL, &e);
	if (e == JVMTI_ERROR_WRONG_PHASE && nearly < EARLY_MAX) {
		early[nearly].m = m;
		early[nearly++].addr = addr;
	} else if (i < NWRAPS) {
		*wraps[i].real = addr;
		*new_addr = wraps[i].wrapper;
	}
}

void ja_rebind_early(jvmtiEnv *jvmti, JNIEnv *env)
{
	JNINativeMethod nm;
	jvmtiError e;
	unsigned int k;
	jclass cls;
	size_t i;

	for (k = 0; k < nearly; k++) {
		i = find_wrap(jvmti, early[k].m, &cls, &e);
		if (i == NWRAPS)
			continue;
		*wraps[i].real = early[k].addr;
		nm.name = (char *)wraps[i].name;
		nm.signature = (char *)wraps[i].sig;
		nm.fnPtr = wraps[i].wrapper;
		if ((*env)->RegisterNatives(env, cls, &nm, 1))
			(*env)->ExceptionClear(env);
	}
	nearly = 0;
}

void JNICALL ja_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
				   jobject obj)
{
	begin(EXP_JW_MONITOR);
}

void JNICALL ja_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *env,
				     jthread thr, jobject obj)
{
	end(EXP_JW_MONITOR);
}
