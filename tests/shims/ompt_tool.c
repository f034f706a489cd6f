/*
 * An application's own OMPT tool, as a profiler would be: it counts the
 * parallel regions libomp reports and prints the count at exit. Preloaded
 * after libwisp (tests/dt.cmake, mpi.dt_ompt.np1.other_tool): wisp's
 * ompt_start_tool must hand libomp this one, and not park any thread.
 */
#include <stdint.h>
#include <stdio.h>

#include "team/ompt.h" /* the specification's declarations, as wisp's */

#define EXPORT __attribute__((visibility("default"))) /* the build hides by default */

static long regions;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)codeptr;
    __atomic_fetch_add(&regions, 1, __ATOMIC_RELAXED);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    return set(ompt_callback_parallel_begin,
               (ompt_callback_t)(ompt_callback_parallel_begin_t)on_parallel_begin) ==
           ompt_set_always;
}

static void finalize(ompt_data_t *data)
{
    (void)data;
    printf("ompt_tool: %ld parallel regions\n", regions);
    fflush(stdout);
}

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
