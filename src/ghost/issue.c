/*
 * One one-sided operation as the MPI's own call on a given window, rank and
 * displacement: the last step of every redirected operation (redirect.c)
 * and of each piece of a split one (split.c); the completion of all of them
 * on an internal window; and where the error of the application's window
 * is raised.
 */
#include "ghost/issue.h"

#include "wisp_have.h" /* WISP_HAVE_MPI_*_c */

int wisp_ghost_win_error(struct wisp_ghost_win *w, int rc)
{
    if (rc != MPI_SUCCESS)
        PMPI_Win_call_errhandler(w->win, rc);
    return rc;
}

#if defined(WISP_HAVE_MPI_Put_c) && defined(WISP_HAVE_MPI_Rput_c) &&                               \
    defined(WISP_HAVE_MPI_Get_c) && defined(WISP_HAVE_MPI_Rget_c) &&                               \
    defined(WISP_HAVE_MPI_Accumulate_c) && defined(WISP_HAVE_MPI_Raccumulate_c) &&                 \
    defined(WISP_HAVE_MPI_Get_accumulate_c) && defined(WISP_HAVE_MPI_Rget_accumulate_c)
static int issue_large(const struct wisp_ghost_op *o, int rank, MPI_Aint disp, MPI_Win win)
{
    MPI_Request *r = o->request;
    switch (o->kind) {
    case WISP_GHOST_PUT:
        return r ? PMPI_Rput_c(o->origin, o->ocount, o->otype, rank, disp, o->tcount, o->ttype, win,
                               r)
                 : PMPI_Put_c(o->origin, o->ocount, o->otype, rank, disp, o->tcount, o->ttype, win);
    case WISP_GHOST_GET:
        return r ? PMPI_Rget_c((void *)o->origin, o->ocount, o->otype, rank, disp, o->tcount,
                               o->ttype, win, r)
                 : PMPI_Get_c((void *)o->origin, o->ocount, o->otype, rank, disp, o->tcount,
                              o->ttype, win);
    case WISP_GHOST_ACC:
        return r ? PMPI_Raccumulate_c(o->origin, o->ocount, o->otype, rank, disp, o->tcount,
                                      o->ttype, o->op, win, r)
                 : PMPI_Accumulate_c(o->origin, o->ocount, o->otype, rank, disp, o->tcount,
                                     o->ttype, o->op, win);
    case WISP_GHOST_GET_ACC:
        return r ? PMPI_Rget_accumulate_c(o->origin, o->ocount, o->otype, o->result, o->rcount,
                                          o->rtype, rank, disp, o->tcount, o->ttype, o->op, win, r)
                 : PMPI_Get_accumulate_c(o->origin, o->ocount, o->otype, o->result, o->rcount,
                                         o->rtype, rank, disp, o->tcount, o->ttype, o->op, win);
    default:
        return MPI_ERR_INTERN;
    }
}
#else
static int issue_large(const struct wisp_ghost_op *o, int rank, MPI_Aint disp, MPI_Win win)
{
    (void)o, (void)rank, (void)disp, (void)win;
    return MPI_ERR_INTERN; /* no _c forms in this MPI: never called */
}
#endif

int wisp_ghost_issue(const struct wisp_ghost_op *o, int rank, MPI_Aint disp, MPI_Win win)
{
    if (o->large)
        return issue_large(o, rank, disp, win);
    MPI_Request *r = o->request;
    int oc = (int)o->ocount, tc = (int)o->tcount, rc = (int)o->rcount;
    switch (o->kind) {
    case WISP_GHOST_PUT:
        return r ? PMPI_Rput(o->origin, oc, o->otype, rank, disp, tc, o->ttype, win, r)
                 : PMPI_Put(o->origin, oc, o->otype, rank, disp, tc, o->ttype, win);
    case WISP_GHOST_GET:
        return r ? PMPI_Rget((void *)o->origin, oc, o->otype, rank, disp, tc, o->ttype, win, r)
                 : PMPI_Get((void *)o->origin, oc, o->otype, rank, disp, tc, o->ttype, win);
    case WISP_GHOST_ACC:
        return r ? PMPI_Raccumulate(o->origin, oc, o->otype, rank, disp, tc, o->ttype, o->op, win,
                                    r)
                 : PMPI_Accumulate(o->origin, oc, o->otype, rank, disp, tc, o->ttype, o->op, win);
    case WISP_GHOST_GET_ACC:
        return r ? PMPI_Rget_accumulate(o->origin, oc, o->otype, o->result, rc, o->rtype, rank,
                                        disp, tc, o->ttype, o->op, win, r)
                 : PMPI_Get_accumulate(o->origin, oc, o->otype, o->result, rc, o->rtype, rank, disp,
                                       tc, o->ttype, o->op, win);
    case WISP_GHOST_FOP:
        return PMPI_Fetch_and_op(o->origin, o->result, o->ttype, rank, disp, o->op, win);
    case WISP_GHOST_CAS:
        return PMPI_Compare_and_swap(o->origin, o->compare, o->result, o->ttype, rank, disp, win);
    }
    return MPI_ERR_INTERN;
}

/* A flush of all targets of `global` goes target by target (below, where not).
 * MPICH 4.0.2's MPI_Win_flush_all with UCX 1.13 (one flush of the whole UCX
 * worker) returned, in about a tenth of the fence epochs on 2 cores, before
 * single-int gets served by a ghost had all landed (MPICH's rma/test5_am,
 * tests/mpi/ghost_fence_gets.c: in 150 rounds 7 went wrong); with
 * MPI_Win_flush of each target (a flush of its UCX endpoint), none in 200.
 * A target with nothing to complete costs the MPI a test and one poll; so
 * where no operation went to a ghost since the last flush, the MPI's own
 * flush_all stays (redirect.c, flush_global: none went wrong without ghost
 * routes, WISP_ASYNC=off), as it does for the lock windows, where only the
 * ranks locked may be flushed (Open MPI refuses the others). */
int wisp_ghost_flush_each(const struct wisp_ghost_win *w, MPI_Win iwin, bool local)
{
    int rc = MPI_SUCCESS;
    for (int r = 0; r < w->nranks; r++) {
        int rc2 = local ? PMPI_Win_flush_local(r, iwin) : PMPI_Win_flush(r, iwin);
        rc = rc == MPI_SUCCESS ? rc2 : rc;
    }
    return rc;
}
