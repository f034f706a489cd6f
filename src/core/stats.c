/*
 * The WISP_STATS report. Every rank condenses its counters into a fixed-size
 * record (totals and its three most expensive MPI functions); rank 0 gathers
 * them and prints a table in rank order, so the report reads the same however
 * the ranks' stderr streams interleave; each line carries the prefix of the rank it
 * is about (wisp[3]: stats rank 3 ...), as if that rank printed it.
 */
#include "core/stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/account.h"
#include "core/component.h"
#include "core/config.h"
#include "core/log.h"

struct wisp_stats_shm wisp_stats_shm;
_Atomic uint64_t wisp_stats_heap_mpi;

enum { TOP = 3 };

struct rank_record {
    int32_t log_rank; /* its messages' prefix (its MPI_COMM_WORLD rank) */
    uint64_t calls, mpi_ns, wall_ns;
    struct {
        int32_t id; /* -1: empty */
        uint64_t calls, ns;
    } top[TOP];
    struct wisp_stats_shm shm; /* what came in through shared memory */
    struct {
        uint64_t shared, ranges, bytes;
    } team;            /* packs shared inside parallel regions (the idle-thread team) */
    uint64_t heap_mpi; /* the MPI's allocations left to glibc */
};

static uint64_t start_ns;

void wisp_core_stats_start(void)
{
    start_ns = wisp_core_clock_ns();
    if (wisp_config.STATS)
        wisp_core_account_start(true, UINT64_MAX);
}

static void condense(struct rank_record *r)
{
    *r = (struct rank_record){.log_rank = wisp_core_log_rank,
                              .wall_ns = wisp_core_clock_ns() - start_ns,
                              .shm = wisp_stats_shm,
                              .heap_mpi = atomic_load(&wisp_stats_heap_mpi)};
    r->team.shared = wisp_core_component_counter("team", "shared_inside");
    r->team.ranges = wisp_core_component_counter("team", "parked_ranges");
    r->team.bytes = wisp_core_component_counter("team", "parked_bytes");
    for (int t = 0; t < TOP; t++)
        r->top[t].id = -1;
    for (int id = 0; id < WISP_FN_COUNT; id++) {
        uint64_t calls, ns;
        wisp_core_account_read((enum wisp_fn_id)id, &calls, &ns);
        r->calls += calls;
        r->mpi_ns += ns;
        if (!calls)
            continue;
        int slot = TOP; /* insertion into the small sorted top list */
        while (slot > 0 && (r->top[slot - 1].id < 0 || r->top[slot - 1].ns < ns))
            slot--;
        if (slot == TOP)
            continue;
        for (int t = TOP - 1; t > slot; t--)
            r->top[t] = r->top[t - 1];
        r->top[slot].id = id;
        r->top[slot].calls = calls;
        r->top[slot].ns = ns;
    }
}

static void print_record(int rank, const struct rank_record *r)
{
    char line[512];
    int n = snprintf(line, sizeof line,
                     "stats rank %d: %" PRIu64 " MPI calls, %.6f s in MPI of %.6f s (%.1f%%)", rank,
                     r->calls, r->mpi_ns * 1e-9, r->wall_ns * 1e-9,
                     r->wall_ns ? 100.0 * (double)r->mpi_ns / (double)r->wall_ns : 0.0);
    for (int t = 0; t < TOP && r->top[t].id >= 0 && n < (int)sizeof line; t++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %" PRIu64 "x %.6f s",
                      t ? "," : "; top:", wisp_fn_names[r->top[t].id], r->top[t].calls,
                      r->top[t].ns * 1e-9);
    wisp_log_for(r->log_rank, "%s", line);
    const struct wisp_stats_shm *s = &r->shm;
    if (s->immediate + s->staged + s->single_copy + s->synergistic + s->self)
        wisp_log_for(r->log_rank,
                     "stats rank %d shared memory: %" PRIu64 " immediate, %" PRIu64
                     " staged, %" PRIu64 " single copy, %" PRIu64 " synergistic, %" PRIu64
                     " to self; %" PRIu64 " copies, %" PRIu64 " bytes",
                     rank, s->immediate, s->staged, s->single_copy, s->synergistic, s->self,
                     s->copies, s->bytes);
    if (r->heap_mpi)
        wisp_log_for(r->log_rank,
                     "stats rank %d shared heap: %" PRIu64
                     " allocations of the MPI's own code left to glibc",
                     rank, r->heap_mpi);
    if (r->team.shared)
        wisp_log_for(
            r->log_rank,
            "stats rank %d datatype team: %" PRIu64
            " packs shared inside parallel regions; threads parked at barriers did %" PRIu64
            " ranges, %" PRIu64 " bytes",
            rank, r->team.shared, r->team.ranges, r->team.bytes);
}

void wisp_core_stats_finish(MPI_Comm world)
{
    if (!wisp_config.STATS)
        return;
    wisp_core_accounting = false;
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    struct rank_record mine, *all = NULL;
    condense(&mine);
    if (rank == 0 && !(all = malloc(sizeof *all * (size_t)size)))
        wisp_fatal("out of memory for the statistics of %d ranks", size);
    PMPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, world);
    for (int r = 0; rank == 0 && r < size; r++)
        print_record(r, &all[r]);
    free(all);
}
