/*
 * Static segment binding (binding.c): an operation whose target elements
 * belong to more than one ghost becomes one operation per ghost, each over
 * the elements that ghost owns, described by indexed datatypes of the
 * elements' predefined type on the origin side (and the result side) and on
 * the target side. An element is never cut: it belongs to the ghost that
 * owns its first byte, whatever the segment boundaries, so MPI's
 * per-element atomicity and the order of one origin's accumulates on an
 * element hold. (Casper's alignment argument, 16-byte boundaries, makes
 * the common case cut nothing; the rule by first byte keeps the packed
 * structures of its Figure 4.7 correct too.) A put or get of several
 * predefined types is cut into bytes, as MPI does not make those atomic.
 *
 * A request form completes its pieces locally at once (flush_local on the
 * ghosts used) and returns a request that is already complete.
 */
#include "ghost/split.h"

#include <stdlib.h>

#include "dt/dt.h"
#include "ghost/binding.h"
#include "ghost/board.h"
#include "ghost/elements.h"
#include "ghost/getacc_split.h"

/* One side of the operation: its elements' offsets. */
struct side {
    MPI_Aint *off;
    int n;
};

static int build(const struct side *s, const int *pick, int n, MPI_Datatype basic,
                 MPI_Aint *scratch, MPI_Datatype *type)
{
    for (int k = 0; k < n; k++)
        scratch[k] = s->off[pick[k]];
    int rc = PMPI_Type_create_hindexed_block(n, 1, scratch, basic, type);
    return rc == MPI_SUCCESS ? PMPI_Type_commit(type) : rc;
}

/* The engine may have described a piece's type (getacc_split.c asks for
 * its elements): the MPI gives the handle to the next new type. */
static void free_type(MPI_Datatype *type)
{
    if (*type == MPI_DATATYPE_NULL)
        return;
    wisp_dt_forget(*type);
    PMPI_Type_free(type);
}

int wisp_ghost_split(struct wisp_ghost_win *w, const struct wisp_ghost_op *o, MPI_Win iwin)
{
    const struct wisp_ghost_target *t = &w->t[o->target];
    int G = wisp_ghost_node.ghosts;
    MPI_Aint at = o->disp * t->disp_unit, gdisp = t->off + at;
    bool acc = o->kind >= WISP_GHOST_ACC;
    bool has_origin = o->kind != WISP_GHOST_GET_ACC || o->op != MPI_NO_OP;
    MPI_Datatype basic = wisp_ghost_basic_type(o->ttype);
    int esize;
    PMPI_Type_size(basic, &esize);

    struct side tgt = {0}, org = {0}, res = {0};
    tgt.off = wisp_ghost_element_offsets(o->tcount, o->ttype, esize, &tgt.n);
    if (has_origin)
        org.off = wisp_ghost_element_offsets(o->ocount, o->otype, esize, &org.n);
    if (o->kind == WISP_GHOST_GET_ACC)
        res.off = wisp_ghost_element_offsets(o->rcount, o->rtype, esize, &res.n);
    int n = tgt.n;
    int *owner = malloc(sizeof *owner * (size_t)(n + 1));
    int *pick = malloc(sizeof *pick * (size_t)(n + 1));
    MPI_Aint *scratch = malloc(sizeof *scratch * (size_t)(n + 1));
    int rc = MPI_SUCCESS;
    if (!tgt.off || (has_origin && !org.off) || (o->kind == WISP_GHOST_GET_ACC && !res.off) ||
        !owner || !pick || !scratch)
        rc = MPI_ERR_NO_MEM;
    else if ((has_origin && org.n != n) || (res.off && res.n != n))
        rc = MPI_ERR_COUNT;
    for (int e = 0; e < n && rc == MPI_SUCCESS; e++)
        owner[e] = wisp_ghost_owner(w, t, at + tgt.off[e]);

    uint64_t used = 0;
    for (int g = 0; g < G && rc == MPI_SUCCESS; g++) {
        int k = 0;
        for (int e = 0; e < n; e++)
            if (owner[e] == g)
                pick[k++] = e;
        if (k == 0)
            continue;
        MPI_Datatype tt = MPI_DATATYPE_NULL, ot = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
        rc = build(&tgt, pick, k, basic, scratch, &tt);
        if (rc == MPI_SUCCESS && has_origin)
            rc = build(&org, pick, k, basic, scratch, &ot);
        if (rc == MPI_SUCCESS && res.off)
            rc = build(&res, pick, k, basic, scratch, &rt);
        if (rc == MPI_SUCCESS)
            rc = wisp_ghost_use(w, o->target, iwin, g, acc, (MPI_Aint)k * esize);
        struct wisp_ghost_op part = *o;
        part.large = false;
        part.request = NULL;
        part.tcount = 1;
        part.ttype = tt;
        part.ocount = has_origin ? 1 : 0;
        part.otype = has_origin ? ot : basic;
        part.rcount = 1;
        part.rtype = rt;
        if (!has_origin) { /* MPI_NO_OP ignores the origin: name the result's layout */
            part.origin = o->result;
            part.ocount = 1;
            part.otype = rt;
        }
        int grank = t->ghost0 + g;
        if (rc == MPI_SUCCESS && o->kind == WISP_GHOST_GET_ACC &&
            wisp_ghost_getacc_split_needed(part.otype, rt, tt, o->op))
            rc = wisp_ghost_getacc_split(part.origin, 1, part.otype, o->result, 1, rt, grank, gdisp,
                                         1, tt, o->op, iwin);
        else if (rc == MPI_SUCCESS)
            rc = wisp_ghost_issue(&part, grank, gdisp, iwin);
        used |= (uint64_t)1 << g;
        free_type(&tt);
        free_type(&ot);
        free_type(&rt);
    }
    if (o->request && rc == MPI_SUCCESS) {
        for (int g = 0; g < G && rc == MPI_SUCCESS; g++)
            if (used >> g & 1)
                rc = PMPI_Win_flush_local(t->ghost0 + g, iwin);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Rget(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, 0, MPI_BYTE, iwin, o->request);
    }
    free(tgt.off);
    free(org.off);
    free(res.off);
    free(owner);
    free(pick);
    free(scratch);
    return rc;
}
