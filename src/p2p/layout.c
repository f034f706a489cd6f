/*
 * A received message's bytes go straight into the application's buffer:
 * with memcpy where its datatype leaves them in one run, else through the
 * datatype engine (src/dt), which writes each byte range of the stream where
 * the layout puts it: no private buffer, no unpacking pass afterwards. Out
 * of another process's private memory (cross-memory attach) the kernel
 * scatters the bytes into the layout's pieces itself.
 */
#include "p2p/p2p.h"

#include <string.h>

enum { PIECES = 256 }; /* iovecs per process_vm_readv: a few KiB of stack */

void wisp_p2p_recv_put(struct wisp_p2p_req *req, uint64_t at, const void *src, uint64_t n)
{
    if (!n)
        return; /* a zero-byte receive may have a null buffer */
    if (req->layout)
        wisp_dt_layout_unpack(src, at, n, req->rbuf, req->count, req->layout);
    else
        memcpy(req->dst + at, src, n);
}

void wisp_p2p_recv_put_peer(struct wisp_p2p_req *req, uint64_t at, int from, const char *src,
                            uint64_t n)
{
    if (!req->layout) {
        if (n)
            wisp_p2p_cma_copy(from, req->dst + at, src, n);
        return;
    }
    struct iovec piece[PIECES];
    for (uint64_t done = 0; done < n;) {
        int pieces = 0;
        size_t covered = wisp_dt_layout_iov(req->rbuf, req->count, req->layout, at + done, n - done,
                                            piece, PIECES, &pieces);
        if (!covered)
            break; /* clipped to the layout (the caller never asks past it) */
        wisp_p2p_cma_scatter(from, piece, pieces, src + done, covered);
        done += covered;
    }
}
