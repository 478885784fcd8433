// SPDX-License-Identifier: GPL-2.0
/*
 * omp_callbacks [CHUNKS]: what the OMPT tool itself costs an empty
 * parallel region of two threads (scripts/bench-omp), measured apart
 * from the runtime and the scheduler.  Run under `lwprof collect --omp
 * on`: the program plays the runtime, starts the preloaded library's
 * tool through ompt_start_tool() and calls its callbacks as LLVM's
 * libomp does for each region: on the encountering thread parallel
 * begin, implicit task begin, implicit barrier wait begin and end,
 * implicit task end, parallel end; on a worker (its own thread)
 * implicit task begin, barrier wait begin and end, implicit task end.
 * Each role runs CHUNKS (default 20) chunks of 16384 regions, in which
 * the thread writes its buffer out once or twice (a folded record of
 * 72 or 88 bytes a region, a megabyte a buffer); the fastest chunk is the cost, what
 * other work on a shared machine adds left out.  Prints "callbacks MASTER_NS WORKER_NS CLOCK_NS": a region's
 * callbacks on each thread, and one clock read for scale.  It writes
 * the tool's records into the experiment as the tool does in a program.
 *
 * omp_callbacks -c ROUNDS: the tool's clock against clock_gettime()
 * (tests/host/omp_clock): ROUNDS regions 2 ms apart, each bracketed by
 * the program's clock reads, "region N BEFORE MIDDLE AFTER": region N
 * began between BEFORE and MIDDLE and ended between MIDDLE and AFTER.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ompt/abi.h"

#define CHUNK	16384

typedef void (*thread_begin_fn)(int type, ompt_data_t *thread);
typedef void (*parallel_begin_fn)(ompt_data_t *task, const ompt_frame_t *frame,
				  ompt_data_t *parallel, unsigned int asked,
				  int flags, const void *codeptr);
typedef void (*parallel_end_fn)(ompt_data_t *parallel, ompt_data_t *task,
				int flags, const void *codeptr);
typedef void (*implicit_task_fn)(int endpoint, ompt_data_t *parallel,
				 ompt_data_t *task, unsigned int team,
				 unsigned int index, int flags);
typedef void (*sync_wait_fn)(int kind, int endpoint, ompt_data_t *parallel,
			     ompt_data_t *task, const void *codeptr);

static ompt_callback_t cbs[64];
static ompt_frame_t frame;
static ompt_data_t task_data, parallel_data;
static int chunks = 20;

static int set_callback(int event, ompt_callback_t cb)
{
	if (event < 0 || event >= 64)
		return ompt_set_error;
	cbs[event] = cb;
	return 5;	/* ompt_set_always */
}

static int get_task_info(int level, int *flags, ompt_data_t **task,
			 ompt_frame_t **f, ompt_data_t **parallel, int *num)
{
	*flags = ompt_task_implicit;
	*task = &task_data;
	*f = &frame;
	*parallel = &parallel_data;
	*num = 0;
	return 2;
}

static ompt_interface_fn_t lookup(const char *name)
{
	if (!strcmp(name, "ompt_set_callback"))
		return (ompt_interface_fn_t)set_callback;
	if (!strcmp(name, "ompt_get_task_info"))
		return (ompt_interface_fn_t)get_task_info;
	return NULL;
}

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The fastest chunk of fn(), in ns a call. */
static double fastest(void (*fn)(void))
{
	unsigned long long best = ~0ULL, t;
	int c;

	for (c = 0; c < chunks; c++) {
		t = now();
		fn();
		t = now() - t;
		if (t < best)
			best = t;
	}
	return (double)best / CHUNK;
}

static void master_chunk(void)
{
	static ompt_data_t task, par, itask;
	static int code;	/* the region's return address: one place */
	int i;

	for (i = 0; i < CHUNK; i++) {
		((parallel_begin_fn)cbs[ompt_callback_parallel_begin])(
			&task, &frame, &par, 2, 0, &code);
		((implicit_task_fn)cbs[ompt_callback_implicit_task])(
			ompt_scope_begin, &par, &itask, 2, 0, ompt_task_implicit);
		((sync_wait_fn)cbs[ompt_callback_sync_region_wait])(
			ompt_sync_region_barrier_implicit, ompt_scope_begin,
			&par, &itask, &code);
		((sync_wait_fn)cbs[ompt_callback_sync_region_wait])(
			ompt_sync_region_barrier_implicit, ompt_scope_end,
			&par, &itask, &code);
		((implicit_task_fn)cbs[ompt_callback_implicit_task])(
			ompt_scope_end, &par, &itask, 2, 0, ompt_task_implicit);
		((parallel_end_fn)cbs[ompt_callback_parallel_end])(
			&par, &task, 0, &code);
	}
}

static void worker_chunk(void)
{
	static __thread ompt_data_t par = { .value = 1 }, itask;
	int i;

	for (i = 0; i < CHUNK; i++) {
		((implicit_task_fn)cbs[ompt_callback_implicit_task])(
			ompt_scope_begin, &par, &itask, 2, 1, ompt_task_implicit);
		((sync_wait_fn)cbs[ompt_callback_sync_region_wait])(
			ompt_sync_region_barrier_implicit, ompt_scope_begin,
			&par, &itask, NULL);
		((sync_wait_fn)cbs[ompt_callback_sync_region_wait])(
			ompt_sync_region_barrier_implicit, ompt_scope_end,
			&par, &itask, NULL);
		((implicit_task_fn)cbs[ompt_callback_implicit_task])(
			ompt_scope_end, NULL, &itask, 2, 1, ompt_task_implicit);
	}
}

static void clock_chunk(void)
{
	volatile unsigned long long sink;
	int i;

	for (i = 0; i < CHUNK; i++)
		sink = now();
	(void)sink;
}

static void *worker(void *arg)
{
	ompt_data_t thread = { 0 };

	((thread_begin_fn)cbs[ompt_callback_thread_begin])(ompt_thread_worker,
							   &thread);
	*(double *)arg = fastest(worker_chunk);
	((void (*)(ompt_data_t *))cbs[ompt_callback_thread_end])(&thread);
	return NULL;
}

/* Regions begun and ended between clock reads, 2 ms apart. */
static void clock_rounds(int rounds)
{
	static ompt_data_t task, par;
	static int code;
	struct timespec gap = { 0, 2000000 };
	unsigned long long b, m, a;
	int i;

	for (i = 1; i <= rounds; i++) {
		b = now();
		((parallel_begin_fn)cbs[ompt_callback_parallel_begin])(
			&task, &frame, &par, 1, 0, &code);
		m = now();
		((parallel_end_fn)cbs[ompt_callback_parallel_end])(
			&par, &task, 0, &code);
		a = now();
		printf("region %d %llu %llu %llu\n", i, b, m, a);
		nanosleep(&gap, NULL);
	}
}

int main(int argc, char **argv)
{
	ompt_start_tool_result_t *(*start)(unsigned int, const char *);
	ompt_start_tool_result_t *tool;
	ompt_data_t thread = { 0 };
	double master, wk = 0;
	pthread_t t;
	int rounds = 0;

	if (argc > 2 && !strcmp(argv[1], "-c"))
		rounds = atoi(argv[2]);
	else if (argc > 1)
		chunks = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
	start = (ompt_start_tool_result_t *(*)(unsigned int, const char *))
		dlsym(RTLD_DEFAULT, "ompt_start_tool");
	tool = start ? start(201611, "omp_callbacks") : NULL;
	if (!tool || !tool->initialize(lookup, 0, &tool->tool_data)) {
		fprintf(stderr, "omp_callbacks: no OMPT tool (run under lwprof collect --omp on)\n");
		return 1;
	}
	frame.enter_frame.ptr = __builtin_frame_address(0);
	((thread_begin_fn)cbs[ompt_callback_thread_begin])(ompt_thread_initial,
							   &thread);
	if (rounds) {
		clock_rounds(rounds);
		tool->finalize(&tool->tool_data);
		return 0;
	}
	master = fastest(master_chunk);
	if (pthread_create(&t, NULL, worker, &wk) || pthread_join(t, NULL))
		return 1;
	printf("callbacks %.1f %.1f %.1f\n", master, wk, fastest(clock_chunk));
	tool->finalize(&tool->tool_data);
	return 0;
}
