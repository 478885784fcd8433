// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's entry (agent.h): collect -j on starts the JVM with
 * -agentpath:liblwprof_jvmti.so=OPTIONS and LWPROF_JAVA_DIR, the
 * experiment's directory.  OPTIONS, comma-separated:
 *
 *   interval=NS   clock ticks of each Java thread's CPU time (0: none)
 *   blocks=0|1    the stacks where threads block (default 1)
 *   monitors=0|1  contended monitor enters (default 1)
 *
 * Without the directory the agent says so and stays out of the way: the
 * JVM runs as if it were not there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define JA_NAME	"liblwprof_jvmti"

struct ja_conf ja_conf = { .interval_ns = 10000000, .blocks = true,
			   .monitors = true };
jvmtiEnv *ja_jvmti;
uint32_t ja_pid;

static void parse(const char *opts)
{
	char *s = opts ? strdup(opts) : NULL, *tok, *save = NULL;
	unsigned long long v;
	char key[32];

	for (tok = s ? strtok_r(s, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (sscanf(tok, "%31[^=]=%llu", key, &v) != 2) {
			fprintf(stderr, JA_NAME ": option %s: not NAME=NUMBER\n", tok);
			continue;
		}
		if (!strcmp(key, "interval"))
			ja_conf.interval_ns = v;
		else if (!strcmp(key, "blocks"))
			ja_conf.blocks = v;
		else if (!strcmp(key, "monitors"))
			ja_conf.monitors = v;
		else
			fprintf(stderr, JA_NAME ": unknown option %s\n", key);
	}
	free(s);
}

/* A Java thread's name record, and its state (on the thread itself). */
static void thread_begin(jvmtiEnv *jvmti, JNIEnv *env, jthread thr)
{
	struct ja_thread *t = ja_self ? ja_self : ja_thread_new(env);
	bool known = t == ja_self;
	struct exp_rec_jthread *r;
	jvmtiThreadInfo ti;
	size_t len, size;

	if (!t)
		return;
	ja_self = t;
	if ((*jvmti)->GetThreadInfo(jvmti, thr, &ti) == JVMTI_ERROR_NONE) {
		len = ti.name ? strlen(ti.name) : 0;
		size = sizeof(*r) + ((len + 8) & ~(size_t)7);
		r = calloc(1, size);
		if (r) {
			r->hdr.type = EXP_REC_JTHREAD;
			r->hdr.flags = ti.is_daemon ? EXP_JT_DAEMON : 0;
			r->hdr.size = size;
			r->time_ns = ja_now();
			r->pid = ja_pid;
			r->tid = t->tid;
			if (len)
				memcpy(r->name, ti.name, len);
			ja_put(r, size);
			free(r);
		}
		if (ti.name)
			(*jvmti)->Deallocate(jvmti, (unsigned char *)ti.name);
	}
	if (!known)
		ja_tick_start(t);
}

/*
 * AsyncGetCallTrace walks no stack unless class load events are enabled
 * (it answers "no class load"): enabled, with nothing to do.
 */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *env, jthread thr,
				  jclass cls)
{
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thr)
{
	thread_begin(jvmti, env, thr);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thr)
{
	ja_thread_end(ja_self);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thr)
{
	ja_loaded_classes(jvmti);
	if (ja_conf.blocks)
		ja_rebind_early(jvmti, env);
	thread_begin(jvmti, env, thr);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_THREAD_START, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_THREAD_END, NULL);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
	static const jvmtiEvent evs[] = {
		JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
		JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE,
		JVMTI_EVENT_COMPILED_METHOD_LOAD,
		JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
		JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
		JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
		JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
	};
	size_t i;

	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, evs[i], NULL);
	ja_out_close();
	/* a few ticks landing on their thread's own write are no news */
	if (ja_dropped * 100 > ja_ticks)
		fprintf(stderr, JA_NAME ": %lu of %lu ticks dropped (each landed on its thread's own write)\n",
			ja_dropped, ja_ticks);
}

static int enable(jvmtiEnv *jvmti, const jvmtiEvent *evs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, evs[i],
						       NULL) != JVMTI_ERROR_NONE)
			return -1;
	return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	static const jvmtiEvent base[] = {
		JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
		JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_COMPILED_METHOD_LOAD,
		JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
		JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
	};
	static const jvmtiEvent mon[] = {
		JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
		JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
	};
	const char *dir = getenv("LWPROF_JAVA_DIR");
	jvmtiEventCallbacks cb;
	jvmtiCapabilities caps;
	jvmtiEnv *jvmti;
	int err;

	if (!dir || !*dir) {
		fprintf(stderr, JA_NAME ": no LWPROF_JAVA_DIR: not recording (run the JVM under lwprof collect -j on)\n");
		return JNI_OK;
	}
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
		fprintf(stderr, JA_NAME ": this JVM has no JVMTI 1.2\n");
		return JNI_ERR;
	}
	ja_jvmti = jvmti;
	ja_pid = getpid();
	parse(options);
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	caps.can_get_line_numbers = 1;
	caps.can_get_source_file_name = 1;
	caps.can_generate_native_method_bind_events = ja_conf.blocks;
	caps.can_generate_monitor_events = ja_conf.monitors;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		fprintf(stderr, JA_NAME ": the JVM refused the capabilities it needs\n");
		return JNI_ERR;
	}
	err = ja_out_open(dir);
	if (err) {
		fprintf(stderr, JA_NAME ": %s/" EXP_JAVA_FMT ": %s\n", dir, ja_pid,
			strerror(-err));
		return JNI_ERR;
	}
	if (ja_tick_init())
		fprintf(stderr, JA_NAME ": no AsyncGetCallTrace in this JVM: no Java stacks at clock ticks\n");
	memset(&cb, 0, sizeof(cb));
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	cb.ThreadStart = on_thread_start;
	cb.ThreadEnd = on_thread_end;
	cb.ClassLoad = on_class_load;
	cb.ClassPrepare = ja_on_class_prepare;
	cb.CompiledMethodLoad = ja_on_compiled_load;
	cb.CompiledMethodUnload = ja_on_compiled_unload;
	cb.DynamicCodeGenerated = ja_on_dynamic_code;
	cb.NativeMethodBind = ja_on_native_bind;
	cb.MonitorContendedEnter = ja_on_contended_enter;
	cb.MonitorContendedEntered = ja_on_contended_entered;
	if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb)) != JVMTI_ERROR_NONE ||
	    enable(jvmti, base, sizeof(base) / sizeof(base[0])) ||
	    (ja_conf.blocks && enable(jvmti, (const jvmtiEvent[]){
			JVMTI_EVENT_NATIVE_METHOD_BIND }, 1)) ||
	    (ja_conf.monitors && enable(jvmti, mon, sizeof(mon) / sizeof(mon[0])))) {
		fprintf(stderr, JA_NAME ": the JVM refused the events it needs\n");
		return JNI_ERR;
	}
	return JNI_OK;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	ja_out_close();
}
