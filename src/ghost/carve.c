/*
 * Setting ghost processes aside (see ghost.h). Roles follow the node
 * layout: the last WISP_GHOSTS ranks of each (virtual) node are ghosts, so
 * the application's ranks stay in world order. The processes of a node
 * share a small board in /dev/shm; an idle ghost sleeps in the kernel on its
 * doorbell there, costing the application nothing, until the node's first
 * application process releases it at MPI_Finalize.
 */
#include "ghost/ghost.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/init.h"
#include "core/log.h"
#include "core/topo.h"
#include "shm/fastbox.h"
#include "shm/segment.h"
#include "wrap/wrap.h"

enum { MAX_GHOSTS = 64 };

/* What the processes of a node share. */
struct ghost_board {
    _Atomic uint32_t released;
    struct wisp_doorbell bells[MAX_GHOSTS];
};

static struct ghost_board *board;
static MPI_Comm users = MPI_COMM_NULL; /* the application's world */
static int nghosts, total_ghosts;
static int is_node_leader;

int wisp_ghost_count(void)
{
    return total_ghosts;
}

static bool released(void *ctx)
{
    (void)ctx;
    return atomic_load_explicit(&board->released, memory_order_acquire);
}

/* Collective over the world: map this node's board (ghosts included), or
 * stop the job on every rank when some node cannot. */
static struct ghost_board *map_board(void)
{
    int fd = wisp_shm_segment_open(wisp_topo.node_comm, "ghost", sizeof(struct ghost_board));
    void *p =
        fd < 0 ? MAP_FAILED
               : mmap(NULL, sizeof(struct ghost_board), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (!wisp_shm_all_agree(p != MAP_FAILED, MPI_COMM_WORLD))
        wisp_core_stop("WISP_GHOSTS: cannot share the ghosts' board through /dev/shm");
    return p;
}

MPI_Comm wisp_ghost_carve(int ghosts)
{
    int fewest = wisp_topo.node_size;
    PMPI_Allreduce(&wisp_topo.node_size, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (fewest <= ghosts) {
        char line[256];
        snprintf(line, sizeof line,
                 "WISP_GHOSTS=%d needs more than %d processes on every node, but a node has %d: "
                 "launch more processes or set fewer ghosts",
                 ghosts, ghosts, fewest);
        wisp_core_stop(line);
    }
    nghosts = ghosts;
    total_ghosts = ghosts * wisp_topo.node_count;
    is_node_leader = wisp_topo.node_rank == 0;
    int ghost = wisp_topo.node_rank - (wisp_topo.node_size - ghosts); /* < 0: not a ghost */

    board = map_board();
    PMPI_Comm_split(MPI_COMM_WORLD, ghost >= 0 ? MPI_UNDEFINED : 0, wisp_topo.world_rank, &users);
    if (ghost < 0) {
        PMPI_Comm_set_name(users, "MPI_COMM_WORLD");
        return users;
    }

    wisp_log(2, "ghost of node %d, waiting", wisp_topo.node_id);
    while (!released(NULL))
        wisp_doorbell_wait(&board->bells[ghost], released, NULL);
    PMPI_Finalize();
    fflush(NULL);
    _exit(0); /* the application's code after MPI_Init never runs here */
}

void wisp_ghost_release(void)
{
    if (!board)
        return;
    if (is_node_leader) {
        atomic_store_explicit(&board->released, 1, memory_order_release);
        for (int g = 0; g < nghosts; g++)
            wisp_doorbell_ring(&board->bells[g]);
    }
    munmap(board, sizeof *board);
    board = NULL;
    PMPI_Comm_free(&users);
    wisp_wrap_user_world = MPI_COMM_WORLD;
}
