/* A served window's memory on one node (segment.h). */
#include "ghost/segment.h"

#include <sys/mman.h>
#include <unistd.h>

#include "ghost/board.h"
#include "shm/segment.h"

bool wisp_ghost_segment_map(struct wisp_ghost_segment *seg, size_t len, size_t mine,
                            size_t mine_len, bool ok)
{
    seg->base = NULL;
    seg->len = len;
    int fd = wisp_shm_segment_open(wisp_ghost_node.all, "win", len);
    if (fd < 0)
        return false;
    /* Commit the memory now: a full /dev/shm fails here, not with SIGBUS at
     * first touch. Each process commits its own part, so that its pages come
     * from its NUMA node as a first touch would place them; the node's first
     * process also commits the hidden bytes that only ghosts touch. */
    if (ok && wisp_ghost_node.all_rank == 0)
        ok = wisp_shm_segment_commit(fd, 0, WISP_GHOST_HIDDEN, "ghost-served window");
    if (ok && mine_len)
        ok = wisp_shm_segment_commit(fd, mine, mine_len, "ghost-served window");
    void *p = ok ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED)
        return false;
    seg->base = p;
    return true;
}

void wisp_ghost_segment_unmap(struct wisp_ghost_segment *seg)
{
    if (seg->base)
        munmap(seg->base, seg->len);
    seg->base = NULL;
}
