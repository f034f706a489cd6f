/*
 * A description as plain bytes another process can use: the header, nodes
 * and arrays are one allocation whose only pointers lead inside it, so a
 * copy is the description once those two are set again. The intra-node
 * engine puts a sender's description beside its message, and the receiver
 * reads the sender's layout with it (one copy, no packing).
 */
#include "dt/desc.h"

#include <string.h>

static size_t head_bytes(void)
{
    return (sizeof(wisp_dt_desc_t) + 15) & ~(size_t)15; /* as flatten.c lays it out */
}

size_t wisp_dt_desc_bytes(const wisp_dt_desc_t *desc)
{
    return head_bytes() + desc->nnodes * sizeof *desc->nodes + desc->naux * sizeof *desc->aux;
}

size_t wisp_dt_desc_export(const wisp_dt_desc_t *desc, void *out, size_t cap)
{
    size_t bytes = wisp_dt_desc_bytes(desc);
    if (bytes > cap)
        return 0;
    memcpy(out, desc, bytes);
    return bytes;
}

const wisp_dt_desc_t *wisp_dt_desc_import(void *in)
{
    wisp_dt_desc_t *d = in;
    d->nodes = (const struct wisp_dt_node *)((char *)in + head_bytes());
    d->aux = (const int64_t *)(d->nodes + d->nnodes);
    return d;
}
