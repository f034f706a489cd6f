/*
 * The idle-thread team (seed 000, MT-MPI): threads of the program's OpenMP
 * runtime that would only wait share a large pack, unpack or copy, on byte
 * ranges of its stream. Outside a parallel region, from the thread that
 * initialized MPI, a team of the runtime's pool (team.c); inside a region,
 * the threads of the caller's region that wait at a barrier (ompt.c,
 * libomp); start.c makes it a component. The datatype engine (src/dt) and the point-to-point
 * engine's plain copies (src/p2p) use it; core reads its counters through the component table
 * (wisp_team_counter).
 */
#ifndef WISP_TEAM_TEAM_H
#define WISP_TEAM_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* The component (core/component.h): find the OpenMP runtime the program
 * loaded and size the team from WISP_DT_THREADS, WISP_DT_THREADS_MIN and
 * the process's share of the machine's cores, saying so (WISP_VERBOSE);
 * from the thread that initialized MPI, whose pool is the one used. Stop:
 * no thread parks at a barrier any more. */
void wisp_team_start(int thread_level);
void wisp_team_stop(void);

/* What the team did, by name: "shared_inside" (operations offered to
 * threads parked at a barrier), "parked_ranges", "parked_bytes" (what those
 * threads did); 0 for another name (WISP_STATS, wisp_dt_counter). */
uint64_t wisp_team_counter(const char *name);

/* A function of a byte range of a stream. */
typedef void wisp_team_range_fn(void *arg, size_t first, size_t len);

/* fn over [first, first + len), which lies in `runs` runs of memory:
 * split among a team when it may, else at once. The work is counted in
 * units, a byte each and WISP_TEAM_RUN_UNITS a run, and the team has at
 * most one thread per WISP_DT_THREADS_MIN units: a team costs every thread
 * it starts (16 threads made a 512 KiB face of contiguous rows 2.9x
 * slower), and runs of a few bytes cost far more than their bytes. */
enum { WISP_TEAM_RUN_UNITS = 128 };
void wisp_team_run(size_t first, size_t len, double runs, wisp_team_range_fn *fn, void *arg);

/* ---- inside the team: start.c, team.c, ompt.c ---- */

/* Find the OpenMP runtime the program loaded; `want` threads in a team (0:
 * the runtime's omp_get_max_threads, but no more than `share`, the cores of
 * the machine per process, where known; 1: never), each with `min` units
 * of work at least (wisp_team_run). Never more than the cores the process
 * may run on. Returns the team's size (1: no team); *runtime names the
 * runtime found ("libgomp", "libomp") or NULL. Call once, from the thread
 * that initialized MPI: its pool is the one used. */
int wisp_team_init(int want, int share, uint64_t min, const char **runtime);

/* Inside a parallel region: fn over [first, first + len) shared with the
 * threads of the caller's innermost region parked at a barrier, if any
 * (false: none, or the runtime has no OMPT; the caller does it alone). */
bool wisp_team_ompt_share(size_t first, size_t len, wisp_team_range_fn *fn, void *arg);

/* Let regions begun from now park their threads at barriers, for jobs of
 * `most` threads at most (the poster too); below 2, never. */
void wisp_team_ompt_enable(int most);

/* NULL when wisp's OMPT tool runs in the process's OpenMP runtime, else why not. */
const char *wisp_team_ompt_why_not(void);

/* What ompt.c counted (wisp_team_counter). */
struct wisp_team_ompt_counts {
    uint64_t shared, ranges, bytes;
};
void wisp_team_ompt_counts(struct wisp_team_ompt_counts *counts);

#pragma GCC visibility pop

#endif
