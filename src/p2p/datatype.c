/*
 * What the engine needs to know of a datatype: how many bytes `count`
 * elements hold, and whether they lie in one run it may copy with memcpy.
 * Only predefined types and contiguous/duplicated ones built from them are
 * treated as one run; every other shape is packed and unpacked by the MPI
 * (a permuted indexed type can have no gaps and still not be in order).
 * Answers are cached per handle; freeing any derived type empties the cache
 * (a new type may get the freed handle).
 *
 * A request of wisp that outlives the call that made it (a pending receive,
 * a persistent request) holds its own reference to a derived type, a
 * duplicate (MPI_Type_dup), so that the user may free the type meanwhile as
 * MPI allows; predefined types need none.
 */
#include "p2p/datatype.h"

#include <string.h>

#include "dt/dt.h"
#include "p2p/lock.h"
#include "p2p/types.h"

enum { CACHE = 64 };

/* MPI_COMM_SELF's duplicate that returns errors, for what wisp asks the MPI
 * by trying it: whether a type is committed (a zero-count pack: it tells
 * no other way), whether it takes an empty message of MPI_DATATYPE_NULL. */
static MPI_Comm probe_comm = MPI_COMM_NULL;

static struct type_info {
    MPI_Datatype type;
    MPI_Count size, extent, true_lb;
    bool dense; /* one element is one run of `size` bytes */
    bool named; /* predefined: never freed */
    bool valid;
} cache[CACHE];

/* The type's combiner and how many of each argument made it (-1 each for a
 * large-count constructor's: MPICH 4.0.2's MPI_Type_get_envelope of such a
 * type is a fatal error, so the _c form always); -1 when the MPI refuses. */
static int envelope(MPI_Datatype type, int *ints, int *addrs, int *types)
{
    int combiner;
#if MPI_VERSION >= 4
    MPI_Count ni, na, nc, nt;
    if (PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nt, &combiner) != MPI_SUCCESS)
        return -1;
    *ints = nc ? -1 : (int)ni, *addrs = nc ? -1 : (int)na, *types = nc ? -1 : (int)nt;
#else
    if (PMPI_Type_get_envelope(type, ints, addrs, types, &combiner) != MPI_SUCCESS)
        return -1;
#endif
    return combiner;
}

static bool dense(MPI_Datatype type, MPI_Count size)
{
    int ints, addrs, types, combiner = envelope(type, &ints, &addrs, &types);
    if (combiner < 0)
        return false;
    MPI_Count lb, true_extent;
    PMPI_Type_get_true_extent_x(type, &lb, &true_extent);
    if (true_extent != size)
        return false;
    if (combiner == MPI_COMBINER_NAMED)
        return true;
    if ((combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || ints > 1 ||
        addrs || types != 1)
        return false;
    int count[1];
    MPI_Aint unused[1];
    MPI_Datatype child;
    PMPI_Type_get_contents(type, ints, addrs, types, count, unused, &child);
    MPI_Count child_size, child_lb, child_extent;
    PMPI_Type_size_x(child, &child_size);
    PMPI_Type_get_extent_x(child, &child_lb, &child_extent);
    bool ok = child_extent == child_size && dense(child, child_size);
    int ci, ca, ct;
    if (envelope(child, &ci, &ca, &ct) != MPI_COMBINER_NAMED)
        PMPI_Type_free(&child);
    return ok;
}

static size_t slot_of(MPI_Datatype type)
{
    return ((uintptr_t)type * 0x9e3779b97f4a7c15u) >> 58;
}

/* Fill the cache entry at `h` for `type`; NULL with the MPI's error code
 * in *rc when the MPI refuses the type. */
static __attribute__((noinline)) struct type_info *fill(MPI_Datatype type, size_t h, int *rc)
{
    MPI_Count size, lb, extent, true_lb, true_extent;
    if ((*rc = PMPI_Type_size_x(type, &size)) != MPI_SUCCESS)
        return NULL;
    int ints, addrs, types, at = 0;
    char none[1];
    int combiner = envelope(type, &ints, &addrs, &types);
    /* Not cached: the type may be committed later. */
    if (combiner != MPI_COMBINER_NAMED && probe_comm != MPI_COMM_NULL &&
        (*rc = PMPI_Pack(none, 0, type, none, 0, &at, probe_comm)) != MPI_SUCCESS)
        return NULL;
    PMPI_Type_get_extent_x(type, &lb, &extent);
    PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent);
    cache[h].type = type;
    cache[h].size = size;
    cache[h].extent = extent;
    cache[h].true_lb = true_lb;
    cache[h].dense = dense(type, size);
    cache[h].named = combiner == MPI_COMBINER_NAMED;
    cache[h].valid = true;
    return &cache[h];
}

/* The cache entry of `type` (a hit stays inline: every message asks). */
static inline struct type_info *entry_of(MPI_Datatype type, int *rc)
{
    size_t h = slot_of(type);
    if (cache[h].valid && cache[h].type == type)
        return &cache[h];
    return fill(type, h, rc);
}

/* MPI_DATATYPE_NULL with count 0: MPICH takes it as an empty message,
 * Open MPI refuses it (MPI_ERR_TYPE). The engine must answer as its MPI
 * does, and cannot ask the MPI about the type (MPI_Type_size of it is an
 * error that no communicator's handler catches: fatal), so it asks once
 * at start, with a send to MPI_PROC_NULL that returns its error. */
static bool null_type_empty;

void wisp_p2p_type_init(void)
{
    PMPI_Comm_dup(MPI_COMM_SELF, &probe_comm);
    PMPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
    null_type_empty =
        PMPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, probe_comm) == MPI_SUCCESS;
}

int wisp_p2p_type_bytes(MPI_Datatype type, MPI_Count count, uint64_t *bytes, bool *contig,
                        MPI_Aint *offset, bool *predefined)
{
    if (type == MPI_DATATYPE_NULL) {
        if (count || !null_type_empty)
            return MPI_ERR_TYPE; /* the caller lets the MPI raise it, or raises it */
        *bytes = 0;
        *contig = true;
        *offset = 0;
        if (predefined)
            *predefined = true;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    struct type_info *e = entry_of(type, &rc);
    if (!e)
        return rc;
    *bytes = (uint64_t)(e->size * count);
    *contig = count == 0 || e->size == 0 || (e->dense && (count == 1 || e->extent == e->size));
    *offset = *contig && *bytes ? (MPI_Aint)e->true_lb : 0;
    if (predefined)
        *predefined = e->named;
    return MPI_SUCCESS;
}

void wisp_p2p_type_fini(void)
{
    if (probe_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&probe_comm);
}

/* The engine forgets what it knew of a freed type (its handle goes to a
 * later type), and so does the datatype engine. */
int wisp_p2p_type_free(MPI_Datatype *type)
{
    wisp_p2p_lock();
    size_t h = slot_of(*type);
    if (cache[h].type == *type)
        cache[h].valid = false;
    wisp_p2p_unlock();
    wisp_dt_forget(*type);
    return PMPI_Type_free(type);
}

bool wisp_p2p_type_hold(MPI_Datatype type, MPI_Datatype *held)
{
    int rc;
    struct type_info *e = entry_of(type, &rc);
    if (!e || e->named)
        return false;
    return PMPI_Type_dup(type, held) == MPI_SUCCESS;
}

void wisp_p2p_type_unhold(MPI_Datatype held)
{
    size_t h = slot_of(held);
    if (cache[h].type == held) /* the MPI may give the handle to a new type */
        cache[h].valid = false;
    wisp_dt_forget(held);
    PMPI_Type_free(&held);
}

/* MPI_Pack and MPI_Unpack refuse a null buffer, but MPI_BOTTOM (null) with
 * absolute displacements is a valid send or receive buffer: shift the type
 * by one byte and the buffer by one back. */
static int shifted(MPI_Datatype type, MPI_Count count, MPI_Datatype *out)
{
#ifdef WISP_P2P_LARGE_COUNTS
    int rc = PMPI_Type_create_hindexed_c(1, &count, (MPI_Count[]){-1}, type, out);
#else
    int rc = PMPI_Type_create_hindexed(1, &(int){(int)count}, (MPI_Aint[]){-1}, type, out);
#endif
    return rc == MPI_SUCCESS ? PMPI_Type_commit(out) : rc;
}

#ifdef WISP_P2P_LARGE_COUNTS
/* The MPI has the large-count forms: use them always, no int to narrow. */
int wisp_p2p_pack_size(MPI_Count count, MPI_Datatype type, MPI_Count *size)
{
    return PMPI_Pack_size_c(count, type, MPI_COMM_SELF, size);
}

static int pack(const void *buf, MPI_Count count, MPI_Datatype type, void *out, MPI_Count size,
                MPI_Count *position)
{
    return PMPI_Pack_c(buf, count, type, out, size, position, MPI_COMM_SELF);
}

static int unpack(const void *in, MPI_Count size, MPI_Count *position, void *buf, MPI_Count count,
                  MPI_Datatype type)
{
    return PMPI_Unpack_c(in, size, position, buf, count, type, MPI_COMM_SELF);
}
#else
/* Without them, no count or size passed in can exceed an int. */
int wisp_p2p_pack_size(MPI_Count count, MPI_Datatype type, MPI_Count *size)
{
    int n = 0, rc = PMPI_Pack_size((int)count, type, MPI_COMM_SELF, &n);
    *size = n;
    return rc;
}

static int pack(const void *buf, MPI_Count count, MPI_Datatype type, void *out, MPI_Count size,
                MPI_Count *position)
{
    int at = (int)*position;
    int rc = PMPI_Pack(buf, (int)count, type, out, (int)size, &at, MPI_COMM_SELF);
    *position = at;
    return rc;
}

static int unpack(const void *in, MPI_Count size, MPI_Count *position, void *buf, MPI_Count count,
                  MPI_Datatype type)
{
    int at = (int)*position;
    int rc = PMPI_Unpack(in, (int)size, &at, buf, (int)count, type, MPI_COMM_SELF);
    *position = at;
    return rc;
}
#endif

/* The packed stream's bytes of `count` elements of `type` if it is
 * committed, the engine describes it and [*at, *at + bytes) fits in `size`;
 * 0 and no reference otherwise (the MPI then does it, and reports what is
 * wrong). */
static uint64_t engine_fits(MPI_Datatype type, MPI_Count count, MPI_Count at, MPI_Count size,
                            MPI_Comm comm, wisp_dt_desc_t **desc)
{
    int rc;
    if (comm == MPI_COMM_NULL || count <= 0 || at < 0 || at > size || !entry_of(type, &rc) ||
        wisp_dt_desc_get(type, desc) != WISP_DT_OK)
        return 0;
    uint64_t bytes = (uint64_t)count * wisp_dt_desc_size(*desc);
    if (bytes && bytes <= (uint64_t)(size - at))
        return bytes;
    wisp_dt_desc_release(*desc);
    return 0;
}

/* Packed by the datatype engine when it describes the type (the same bytes
 * as the MPI's, in one pass with its fast paths), else by the MPI. */
int wisp_p2p_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *out, MPI_Count size,
                  MPI_Count *position)
{
    wisp_dt_desc_t *desc;
    uint64_t bytes = engine_fits(type, count, *position, size, MPI_COMM_SELF, &desc);
    if (bytes) {
        wisp_dt_team_pack(buf, count, desc, 0, bytes, (char *)out + *position);
        wisp_dt_desc_release(desc);
        *position += (MPI_Count)bytes;
        return MPI_SUCCESS;
    }
    if (buf)
        return pack(buf, count, type, out, size, position);
    MPI_Datatype t;
    int rc = shifted(type, count, &t);
    if (rc == MPI_SUCCESS) {
        rc = pack((void *)1, 1, t, out, size, position);
        PMPI_Type_free(&t);
    }
    return rc;
}

int wisp_p2p_unpack(const void *in, MPI_Count size, MPI_Count *position, void *buf, MPI_Count count,
                    MPI_Datatype type)
{
    if (buf)
        return unpack(in, size, position, buf, count, type);
    MPI_Datatype t;
    int rc = shifted(type, count, &t);
    if (rc == MPI_SUCCESS) {
        rc = unpack(in, size, position, (void *)1, 1, t);
        PMPI_Type_free(&t);
    }
    return rc;
}

/* MPI_Pack's and MPI_Unpack's position: an int, or an MPI_Count in the _c forms. */
static MPI_Count position_get(const void *position, bool large)
{
    return large ? *(const MPI_Count *)position : *(const int *)position;
}

static void position_set(void *position, bool large, MPI_Count at)
{
    if (large)
        *(MPI_Count *)position = at;
    else
        *(int *)position = (int)at;
}

int wisp_p2p_user_pack(const void *inbuf, MPI_Count incount, MPI_Datatype type, void *outbuf,
                       MPI_Count outsize, void *position, bool large, MPI_Comm comm)
{
    MPI_Count at = position_get(position, large);
    wisp_dt_desc_t *desc;
    uint64_t bytes = outbuf ? engine_fits(type, incount, at, outsize, comm, &desc) : 0;
    if (bytes) {
        wisp_dt_team_pack(inbuf, incount, desc, 0, bytes, (char *)outbuf + at);
        wisp_dt_desc_release(desc);
        position_set(position, large, at + (MPI_Count)bytes);
        return MPI_SUCCESS;
    }
#ifdef WISP_P2P_LARGE_COUNTS
    if (large)
        return PMPI_Pack_c(inbuf, incount, type, outbuf, outsize, position, comm);
#endif
    return PMPI_Pack(inbuf, (int)incount, type, outbuf, (int)outsize, position, comm);
}

int wisp_p2p_user_unpack(const void *inbuf, MPI_Count insize, void *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype type, bool large, MPI_Comm comm)
{
    MPI_Count at = position_get(position, large);
    wisp_dt_desc_t *desc;
    uint64_t bytes = inbuf ? engine_fits(type, outcount, at, insize, comm, &desc) : 0;
    if (bytes) {
        wisp_dt_team_unpack((const char *)inbuf + at, 0, bytes, outbuf, outcount, desc);
        wisp_dt_desc_release(desc);
        position_set(position, large, at + (MPI_Count)bytes);
        return MPI_SUCCESS;
    }
#ifdef WISP_P2P_LARGE_COUNTS
    if (large)
        return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, type, comm);
#endif
    return PMPI_Unpack(inbuf, (int)insize, position, outbuf, (int)outcount, type, comm);
}
