/*
 * The few declarations of OMPT, the OpenMP tool interface (OpenMP 5.0,
 * section 4), that ompt.c uses, written from the specification: a stable
 * ABI, so wisp builds without an OpenMP runtime's omp-tools.h (Debian ships
 * it only with libomp-dev, in a versioned clang folder). Names, values and
 * signatures are the specification's; only what wisp registers is here.
 */
#ifndef WISP_TEAM_OMPT_H
#define WISP_TEAM_OMPT_H

#include <stdint.h>

typedef union ompt_data_t {
    uint64_t value;
    void *ptr;
} ompt_data_t;

typedef struct ompt_frame_t ompt_frame_t; /* only passed through */

typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef void (*ompt_callback_t)(void);

typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);

typedef struct ompt_start_tool_result_t {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

/* ompt_callbacks_t: the events wisp registers. */
enum {
    ompt_callback_parallel_begin = 3,
    ompt_callback_parallel_end = 4,
    ompt_callback_task_create = 5,
    ompt_callback_task_schedule = 6,
    ompt_callback_implicit_task = 7,
    ompt_callback_sync_region_wait = 16,
    ompt_callback_cancel = 30,
};

/* ompt_set_result_t */
enum { ompt_set_error = 0, ompt_set_never = 1, ompt_set_always = 5 };

/* ompt_scope_endpoint_t */
enum { ompt_scope_begin = 1, ompt_scope_end = 2 };

/* ompt_sync_region_t: 1 and 2 are 5.0's (deprecated in 5.1, which splits
 * them into 8 and 9); libomp 14 reports an explicit barrier as 4. */
enum {
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

/* ompt_task_flag_t */
enum { ompt_task_initial = 0x1, ompt_task_implicit = 0x2, ompt_task_explicit = 0x4 };

/* ompt_task_status_t */
enum {
    ompt_task_complete = 1,
    ompt_task_cancel = 3,
    ompt_task_detach = 4,
};

/* ompt_parallel_flag_t */
enum { ompt_parallel_league = 0x40000000 };

/* ompt_cancel_flag_t: what was cancelled. */
enum {
    ompt_cancel_parallel = 0x01,
    ompt_cancel_sections = 0x02,
    ompt_cancel_loop = 0x04,
    ompt_cancel_taskgroup = 0x08,
    ompt_cancel_activated = 0x10,
};

typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef int (*ompt_get_parallel_info_t)(int ancestor_level, ompt_data_t **parallel_data,
                                        int *team_size);

typedef void (*ompt_callback_parallel_begin_t)(ompt_data_t *encountering_task_data,
                                               const ompt_frame_t *encountering_task_frame,
                                               ompt_data_t *parallel_data,
                                               unsigned int requested_parallelism, int flags,
                                               const void *codeptr_ra);
typedef void (*ompt_callback_parallel_end_t)(ompt_data_t *parallel_data,
                                             ompt_data_t *encountering_task_data, int flags,
                                             const void *codeptr_ra);
typedef void (*ompt_callback_task_create_t)(ompt_data_t *encountering_task_data,
                                            const ompt_frame_t *encountering_task_frame,
                                            ompt_data_t *new_task_data, int flags,
                                            int has_dependences, const void *codeptr_ra);
typedef void (*ompt_callback_task_schedule_t)(ompt_data_t *prior_task_data, int prior_task_status,
                                              ompt_data_t *next_task_data);
typedef void (*ompt_callback_implicit_task_t)(int endpoint, ompt_data_t *parallel_data,
                                              ompt_data_t *task_data,
                                              unsigned int actual_parallelism, unsigned int index,
                                              int flags);
typedef void (*ompt_callback_sync_region_t)(int kind, int endpoint, ompt_data_t *parallel_data,
                                            ompt_data_t *task_data, const void *codeptr_ra);
typedef void (*ompt_callback_cancel_t)(ompt_data_t *task_data, int flags, const void *codeptr_ra);

#endif
