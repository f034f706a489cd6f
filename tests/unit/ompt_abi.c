/*
 * src/team/ompt.h declares the few OMPT types and values wisp uses, written
 * from the OpenMP specification so that wisp builds without omp-tools.h.
 * Compiled twice, against our header and against the runtime's omp-tools.h
 * (-DWISP_OMP_TOOLS_H): both programs must print the same values and sizes.
 */
#ifdef WISP_OMP_TOOLS_H
#include <omp-tools.h>
#else
#include "team/ompt.h"
#endif
#include <stddef.h>
#include <stdio.h>

#define SHOW(x) printf("%s %lld\n", #x, (long long)(x))

int main(void)
{
    SHOW(ompt_callback_parallel_begin);
    SHOW(ompt_callback_parallel_end);
    SHOW(ompt_callback_task_create);
    SHOW(ompt_callback_task_schedule);
    SHOW(ompt_callback_implicit_task);
    SHOW(ompt_callback_sync_region_wait);
    SHOW(ompt_callback_cancel);
    SHOW(ompt_set_error);
    SHOW(ompt_set_never);
    SHOW(ompt_set_always);
    SHOW(ompt_scope_begin);
    SHOW(ompt_scope_end);
    SHOW(ompt_sync_region_barrier);
    SHOW(ompt_sync_region_barrier_implicit);
    SHOW(ompt_sync_region_barrier_explicit);
    SHOW(ompt_sync_region_barrier_implementation);
    SHOW(ompt_sync_region_taskwait);
    SHOW(ompt_sync_region_taskgroup);
    SHOW(ompt_sync_region_reduction);
    SHOW(ompt_sync_region_barrier_implicit_workshare);
    SHOW(ompt_sync_region_barrier_implicit_parallel);
    SHOW(ompt_sync_region_barrier_teams);
    SHOW(ompt_task_initial);
    SHOW(ompt_task_implicit);
    SHOW(ompt_task_explicit);
    SHOW(ompt_task_complete);
    SHOW(ompt_task_cancel);
    SHOW(ompt_task_detach);
    SHOW(ompt_parallel_league);
    SHOW(ompt_cancel_parallel);
    SHOW(ompt_cancel_sections);
    SHOW(ompt_cancel_loop);
    SHOW(ompt_cancel_taskgroup);
    SHOW(ompt_cancel_activated);
    SHOW(sizeof(ompt_data_t));
    SHOW(sizeof(ompt_start_tool_result_t));
    SHOW(offsetof(ompt_start_tool_result_t, finalize));
    SHOW(offsetof(ompt_start_tool_result_t, tool_data));
    return 0;
}
