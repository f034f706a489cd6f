/*
 * A received message's bytes go straight into the application's buffer:
 * with memcpy where its datatype leaves them in one run, else through the
 * datatype engine (src/dt), which writes each byte range of the stream where
 * the layout puts it: no private buffer, no unpacking pass afterwards. A
 * sender's layout is read the same way: its description travels beside the
 * message, so the receiver copies from layout to layout at once. Out of
 * another process's private memory (cross-memory attach) the kernel scatters
 * the bytes into the layout's pieces itself. A large copy is shared among
 * idle threads (wisp_team_run), contiguous ones too.
 */
#include "p2p/layout.h"

#include <string.h>

#include "p2p/cma.h"
#include "p2p/state.h"
#include "team/team.h"

enum { PIECES = 128 }; /* iovecs per process_vm_readv: 2 KiB of stack */

struct span {
    char *dst;
    const char *src;
};

static void copy_range(void *arg, size_t first, size_t len)
{
    const struct span *s = arg;
    memcpy(s->dst + first, s->src + first, len);
}

void wisp_p2p_copy(char *dst, const char *src, uint64_t n)
{
    struct span s = {dst, src};
    wisp_team_run(0, n, 1, copy_range, &s);
}

void wisp_p2p_recv_put(struct wisp_p2p_req *req, uint64_t at, const void *src, uint64_t n)
{
    if (!n)
        return; /* a zero-byte receive may have a null buffer */
    if (req->layout)
        wisp_dt_team_unpack(src, at, n, req->rbuf, req->count, req->layout);
    else
        wisp_p2p_copy(req->dst + at, src, n);
}

/* The receive's pieces for bytes [at, at + n): its layout's, or its one run. */
static size_t recv_pieces(const struct wisp_p2p_req *req, uint64_t at, uint64_t n,
                          struct iovec *piece, int *pieces)
{
    if (req->layout)
        return wisp_dt_layout_iov(req->rbuf, req->count, req->layout, at, n, piece, PIECES, pieces);
    piece[0] = (struct iovec){req->dst + at, n};
    *pieces = 1;
    return n;
}

void wisp_p2p_recv_put_peer(struct wisp_p2p_req *req, uint64_t at, int from, const char *src,
                            uint64_t n)
{
    struct iovec mine[PIECES];
    for (uint64_t done = 0; done < n;) {
        int pieces = 0;
        size_t covered = recv_pieces(req, at + done, n - done, mine, &pieces);
        if (!covered)
            break; /* clipped to the layout (the caller never asks past it) */
        struct iovec theirs = {(char *)src + done, covered};
        done += wisp_p2p_cma_readv(from, mine, pieces, &theirs, 1);
    }
}

void wisp_p2p_recv_get_layout(struct wisp_p2p_req *req, const char *base, MPI_Count count,
                              const wisp_dt_desc_t *desc, uint64_t n)
{
    if (req->layout)
        wisp_dt_team_copy(base, count, desc, req->rbuf, req->count, req->layout, 0, n);
    else if (n)
        wisp_dt_team_pack(base, count, desc, 0, n, req->dst);
}
