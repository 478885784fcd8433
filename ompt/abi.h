/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of the OpenMP tools interface (OMPT, OpenMP 5.0 and 5.1) the
 * tool uses, as the specification defines it: the start and lookup
 * entry points, the callbacks registered and their arguments.  Written
 * here so that the library builds without a runtime's omp-tools.h.
 */
#ifndef LWPROF_OMPT_ABI_H
#define LWPROF_OMPT_ABI_H

#include <stdint.h>

typedef union ompt_data_t {
	uint64_t value;
	void *ptr;
} ompt_data_t;

typedef struct ompt_frame_t {
	ompt_data_t exit_frame;
	ompt_data_t enter_frame;
	int exit_frame_flags;
	int enter_frame_flags;
} ompt_frame_t;

typedef uint64_t ompt_wait_id_t;
typedef void (*ompt_callback_t)(void);
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup,
				 int initial_device_num, ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);

typedef struct ompt_start_tool_result_t {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;

enum {	/* ompt_callbacks_t */
	ompt_callback_thread_begin = 1,
	ompt_callback_thread_end = 2,
	ompt_callback_parallel_begin = 3,
	ompt_callback_parallel_end = 4,
	ompt_callback_task_create = 5,
	ompt_callback_task_schedule = 6,
	ompt_callback_implicit_task = 7,
	ompt_callback_sync_region_wait = 16,
	ompt_callback_mutex_acquire = 26,
	ompt_callback_mutex_acquired = 27,
	ompt_callback_reduction = 31,	/* with ompt_sync_region_reduction */
};

enum { ompt_set_error = 0, ompt_set_never = 1 };	/* ompt_set_result_t */
enum { ompt_scope_begin = 1, ompt_scope_end = 2 };	/* ompt_scope_endpoint_t */
enum { ompt_thread_initial = 1, ompt_thread_worker = 2 };
enum { ompt_task_initial = 0x1, ompt_task_implicit = 0x2, ompt_task_explicit = 0x4 };

enum {	/* ompt_sync_region_t */
	ompt_sync_region_barrier = 1,
	ompt_sync_region_barrier_implicit = 2,
	ompt_sync_region_barrier_explicit = 3,
	ompt_sync_region_barrier_implementation = 4,
	ompt_sync_region_taskwait = 5,
	ompt_sync_region_taskgroup = 6,
	ompt_sync_region_reduction = 7,
	ompt_sync_region_barrier_implicit_workshare = 8,
	ompt_sync_region_barrier_implicit_parallel = 9,
	ompt_sync_region_barrier_teams = 10,
};

enum {	/* ompt_mutex_t */
	ompt_mutex_lock = 1,
	ompt_mutex_test_lock = 2,
	ompt_mutex_nest_lock = 3,
	ompt_mutex_test_nest_lock = 4,
	ompt_mutex_critical = 5,
	ompt_mutex_atomic = 6,
	ompt_mutex_ordered = 7,
};

typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef int (*ompt_get_task_info_t)(int ancestor_level, int *flags,
				    ompt_data_t **task_data,
				    ompt_frame_t **task_frame,
				    ompt_data_t **parallel_data,
				    int *thread_num);

#endif
