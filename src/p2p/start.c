/*
 * The engine's start and end: the node's segment laid out and mapped, each
 * part of the engine started (transport.h says what lives where).
 */
#include "p2p/start.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "core/topo.h"
#include "core/world.h"
#include "p2p/cma.h"
#include "p2p/comm.h"
#include "p2p/datatype.h"
#include "p2p/lend/lend.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/progress.h"
#include "p2p/send.h"
#include "p2p/transport.h"
#include "shm/segment.h"

/* Cells of a fastbox ring among `n` processes (a power of two, rounded down). */
static uint32_t cells_for(int n)
{
    size_t bytes = (size_t)wisp_config.SHM_RING;
    if (!bytes) {
        bytes = RING_SHARE / (size_t)(n > 1 ? n - 1 : 1);
        bytes = bytes < RING_MIN ? RING_MIN : bytes > RING_MAX ? RING_MAX : bytes;
    }
    size_t cells = bytes / WISP_FASTBOX_CELL;
    while (cells & (cells - 1))
        cells &= cells - 1;
    return (uint32_t)cells;
}

/* Once every process of the node committed its SLOTS_AT_START: the rest of
 * its slots where /dev/shm has room (committed mid-run, a burst of sends
 * would pay for the zeroing of their pages: HPCC's PTRANS lost 10% to
 * it), else as many as it holds; the others when sends need them. How
 * many this process has. */
static int commit_more_own_slots(int fd)
{
    int n = SLOTS;
    while (n > SLOTS_AT_START && posix_fallocate(fd, (off_t)slot_offset(wisp_p2p.node_rank, 0),
                                                 (off_t)((size_t)n * wisp_p2p_seg.slot_stride)))
        n /= 2;
    if (n < SLOTS)
        wisp_log(1, "%d of %d rendezvous slots fit in /dev/shm: the others when sends need them", n,
                 SLOTS);
    return n;
}

void wisp_p2p_init(int thread_level)
{
    wisp_p2p_up =
        (struct wisp_p2p_callbacks){.incoming = wisp_p2p_incoming, .lending = wisp_p2p_lend_on};
    wisp_p2p_type_init(); /* MPI_Pack and MPI_Unpack use the datatype engine also without */
    int mine_on = wisp_config.SHM, all_on = 0;
    PMPI_Allreduce(&mine_on, &all_on, 1, MPI_INT, MPI_MIN, wisp_core_user_world);
    if (!all_on)
        return;
    wisp_p2p_poke_init(); /* every process, also where the segment fails below */
    int *tag_ub = NULL, found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
    wisp_p2p.tag_ub = found && tag_ub ? *tag_ub : 32767; /* the least MPI allows */
    int n = wisp_topo.node_size;
    wisp_p2p.node_rank = wisp_topo.node_rank;
    wisp_p2p.node_size = n;
    /* The segment's layout is the node's: node rank 0's settings decide it
     * (a process started with other values would read the wrong cells). */
    uint64_t layout[2] = {cells_for(n), (uint64_t)wisp_config.SHM_STAGE};
    PMPI_Bcast(layout, 2, MPI_UINT64_T, 0, wisp_topo.node_comm);
    wisp_p2p_seg.ring_cells = (uint32_t)layout[0];
    wisp_p2p.stage = layout[1];
    wisp_p2p.immediate_max = (uint64_t)wisp_config.SHM_IMMEDIATE;
    wisp_p2p.single_copy_min = (uint64_t)wisp_config.SHM_SINGLE_COPY;
    wisp_p2p.cma_min = (uint64_t)wisp_config.SHM_CMA_MIN;
    wisp_p2p.synergy_min = (uint64_t)wisp_config.SHM_SYNERGY;
    wisp_p2p.block = (uint64_t)wisp_config.SHM_BLOCK;
    wisp_p2p.sleepy = wisp_topo_oversubscribed();
    wisp_p2p_seg.slot_stride = (sizeof(struct slot) + wisp_p2p.stage + 4095) & ~(size_t)4095;
    size_t first = slots_start(n);
    size_t handback = first + (size_t)n * SLOTS * wisp_p2p_seg.slot_stride;
    wisp_p2p_seg.size = handback + wisp_p2p_handback_size(n);
    int fd = wisp_shm_segment_open(wisp_topo.node_comm, "p2p", wisp_p2p_seg.size);
    void *map = MAP_FAILED;
    /* Committed before use, never by a first touch (a SIGBUS once the heap
     * or the MPI has filled /dev/shm): each process its own slots, so they
     * land on its NUMA node, node rank 0 the rings and the records of
     * messages handed back. */
    if (fd >= 0 &&
        wisp_shm_segment_commit(fd, slot_offset(wisp_p2p.node_rank, 0),
                                (size_t)SLOTS_AT_START * wisp_p2p_seg.slot_stride, "p2p") &&
        (wisp_p2p.node_rank != 0 ||
         (wisp_shm_segment_commit(fd, 0, first, "p2p") &&
          wisp_shm_segment_commit(fd, handback, wisp_p2p_seg.size - handback, "p2p"))))
        map = mmap(NULL, wisp_p2p_seg.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0 && map == MAP_FAILED)
        close(fd);
    wisp_p2p_seg.fd = map != MAP_FAILED ? fd : -1;
    /* A forked child is no MPI process: it does not even get the segment. */
    if (map != MAP_FAILED)
        madvise(map, wisp_p2p_seg.size, MADV_DONTFORK);
    if (!wisp_shm_all_agree(map != MAP_FAILED, wisp_topo.node_comm)) {
        if (map != MAP_FAILED) {
            munmap(map, wisp_p2p_seg.size);
            close(wisp_p2p_seg.fd);
            wisp_p2p_seg.fd = -1;
        }
        wisp_log(1, "point-to-point engine off on this node: no shared segment of %zu bytes",
                 wisp_p2p_seg.size);
        wisp_p2p_comm_init(wisp_core_user_world); /* still agree on contexts, as the others do */
        return;
    }
    wisp_p2p_seg.base = map;
    int committed = commit_more_own_slots(wisp_p2p_seg.fd);
    wisp_fastbox_join(wisp_p2p_seg.base, n, wisp_p2p_seg.ring_cells, wisp_p2p.node_rank);
    wisp_p2p_handback_init(wisp_p2p_seg.base + handback, wisp_p2p.node_rank, n);
    wisp_p2p_sends_init(n, committed);
    wisp_p2p_progress_init(n);
    wisp_p2p.threads = thread_level == MPI_THREAD_MULTIPLE;
    /* n > 1: the rescuer; and the progress thread (src/progress) */
    wisp_p2p_lock_init(n > 1 || wisp_config.PROGRESS != WISP_PROGRESS_OFF, wisp_p2p.threads);
    wisp_p2p.on = true;
    if (n > 1)
        wisp_p2p_rescuer_start();
    wisp_p2p.cma = n > 1 && wisp_p2p_cma_init(wisp_topo.node_comm, wisp_config.SHM_CMA);
    wisp_p2p_comm_init(wisp_core_user_world);
    wisp_log(2,
             "point-to-point engine on: %d processes on this node, rings of %u KiB, "
             "immediate <= %llu B, private messages from %llu B %s",
             n, wisp_p2p_seg.ring_cells * WISP_FASTBOX_CELL >> 10,
             (unsigned long long)wisp_p2p.immediate_max,
             (unsigned long long)(wisp_p2p.cma ? wisp_p2p.cma_min : wisp_p2p.immediate_max + 1),
             wisp_p2p.cma ? "by cross-memory attach" : "staged");
}

void wisp_p2p_fini(void)
{
    if (wisp_p2p_seg.base) { /* sends reported complete must still reach their receivers */
        wisp_p2p_lock();
        wisp_p2p_wait_until(wisp_p2p_sends_delivered, NULL);
        wisp_p2p_drop_slot_holds();
        wisp_p2p_unlock();
    }
    wisp_p2p_poke_fini();
    wisp_p2p_type_fini();
    if (!wisp_p2p_seg.base) {
        wisp_p2p_comm_fini();
        return;
    }
    if (wisp_p2p.node_size > 1)
        wisp_p2p_rescuer_stop();
    wisp_p2p.on = false;
    wisp_p2p.threads = false;
    wisp_p2p.cma = false;
    wisp_p2p_cma_fini();
    wisp_p2p_lock_fini();
    wisp_p2p_comm_fini();
    munmap(wisp_p2p_seg.base, wisp_p2p_seg.size);
    wisp_p2p_seg.base = NULL;
    close(wisp_p2p_seg.fd);
    wisp_p2p_seg.fd = -1;
    wisp_p2p_sends_fini();
    wisp_p2p_progress_fini();
    atomic_store_explicit(&wisp_p2p.outstanding, 0, memory_order_relaxed);
    atomic_store_explicit(&wisp_p2p.deferred, 0, memory_order_relaxed);
    atomic_store_explicit(&wisp_p2p.above, 0, memory_order_relaxed);
}
