/*
 * MPI_Bcast through the area (area.h has the phases). The decision is the
 * data's size alone, since members may describe the same bytes with
 * different types; a type that is not one contiguous block is packed at
 * the root and unpacked elsewhere around the bytes' way.
 *
 * Up to 48 bytes: one phase, inline in the root's line. From
 * WISP_COLL_SINGLE_COPY up, where the root's bytes are in the shared heap:
 * one phase, the root publishes their address, every other member copies
 * them straight from there, and the root waits for all (its buffer is the
 * user's again when it returns). Else through the root's staging halves, a
 * half per phase: the root fills one while the others empty the other. A
 * root of small broadcasts runs up to WISP_COLL_LINES - 1 calls ahead.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/area.h"
#include "coll/coll.h"
#include "coll/layout.h"
#include "coll/mpi.h"
#include "core/log.h"
#include "shm/heap.h"

static void root_sends(struct wisp_coll_comm *c, const char *data, uint64_t bytes)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    struct wisp_coll_line *line = wisp_coll_line(c, c->rank, p);
    if (bytes <= WISP_COLL_INLINE) {
        memcpy(line->data, data, bytes);
        wisp_coll_publish(c, p);
        return;
    }
    if (bytes >= wisp_coll.single_copy_min && wisp_shm_heap_holds(data, bytes)) {
        line->aux = (uint64_t)(uintptr_t)data;
        wisp_coll_publish(c, p);
        wisp_coll_wait_all(c, p);
        return;
    }
    line->aux = 0;
    for (uint64_t off = 0; off < bytes; p = wisp_coll_next(c)) {
        uint64_t n = bytes - off < c->half ? bytes - off : c->half;
        wisp_coll_reuse_half(c, p);
        memcpy(wisp_coll_half(c, c->rank, p), data + off, n);
        wisp_coll_publish(c, p);
        off += n;
    }
}

static void member_receives(struct wisp_coll_comm *c, int root, char *data, uint64_t bytes)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_wait(c, root, p);
    struct wisp_coll_line *line = wisp_coll_line(c, root, p);
    if (bytes <= WISP_COLL_INLINE) {
        memcpy(data, line->data, bytes);
        wisp_coll_publish(c, p);
        return;
    }
    if (line->aux) {
        memcpy(data, (const void *)(uintptr_t)line->aux, bytes);
        wisp_coll_publish(c, p);
        return;
    }
    for (uint64_t off = 0; off < bytes; p = wisp_coll_next(c)) {
        uint64_t n = bytes - off < c->half ? bytes - off : c->half;
        if (off)
            wisp_coll_wait(c, root, p);
        memcpy(data + off, wisp_coll_half(c, root, p), n);
        wisp_coll_publish(c, p);
        off += n;
    }
}

int wisp_coll_bcast(void *buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                    bool large)
{
    struct wisp_coll_comm *c = wisp_coll.on ? wisp_coll_comm_get(comm) : NULL;
    struct wisp_coll_layout l;
    if (!c || count < 0 || root < 0 || root >= c->size || !wisp_coll_layout_of(type, count, &l) ||
        l.bytes > wisp_coll.bcast_max || (l.bytes && l.bytes < wisp_coll.bcast_min))
        return wisp_coll_mpi_bcast(buffer, count, type, root, comm, large);
    wisp_coll_count(&wisp_coll.served);
    if (!l.bytes)
        return MPI_SUCCESS;
    char *data = (char *)buffer + l.lb, *packed = NULL;
    if (!l.contiguous) {
        packed = malloc(l.bytes);
        if (!packed) {
            wisp_log_error("MPI_Bcast: no memory for %llu bytes to pack",
                           (unsigned long long)l.bytes);
            PMPI_Abort(comm, 1);
        }
        data = packed;
        if (c->rank == root && !wisp_coll_pack(buffer, count, type, packed, l.bytes, comm))
            PMPI_Abort(comm, 1);
    }
    if (c->rank == root)
        root_sends(c, data, l.bytes);
    else
        member_receives(c, root, data, l.bytes);
    if (packed) {
        if (c->rank != root && !wisp_coll_unpack(packed, l.bytes, buffer, count, type, comm))
            PMPI_Abort(comm, 1);
        free(packed);
    }
    return MPI_SUCCESS;
}
