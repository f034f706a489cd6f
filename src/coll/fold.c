/*
 * Folding members' contributions where they lie (fold.h).
 */
#include "coll/fold.h"

#include <string.h>

#include "shm/heap.h"

static const char *from_member(struct wisp_coll_comm *c, int m, uint64_t phase,
                               enum wisp_coll_from from)
{
    switch (from) {
    case WISP_COLL_FROM_LINE:
        return (const char *)wisp_coll_line(c, m, phase)->data;
    case WISP_COLL_FROM_HALF:
        return wisp_coll_half(c, m, phase);
    case WISP_COLL_FROM_AUX:
        break;
    }
    return (const char *)(uintptr_t)wisp_coll_line(c, m, phase)->aux;
}

void wisp_coll_fold_members(struct wisp_coll_comm *c, struct wisp_coll_fold f, uint64_t phase,
                            enum wisp_coll_from from, int first, int last, size_t at, size_t n,
                            char *to)
{
    union {
        long double align;
        char bytes[8192];
    } acc;
    size_t per = sizeof acc.bytes / f.size;
    for (size_t done = 0; done < n; done += per) {
        size_t k = n - done < per ? n - done : per, off = (at + done) * f.size;
        memcpy(acc.bytes, from_member(c, first, phase, from) + off, k * f.size);
        for (int m = first + 1; m <= last; m++)
            wisp_coll_fold(f, acc.bytes, from_member(c, m, phase, from) + off, k);
        memcpy(to + done * f.size, acc.bytes, k * f.size);
    }
}

bool wisp_coll_offer(struct wisp_coll_comm *c, const void *in, uint64_t bytes, uint64_t *phase)
{
    uint64_t p = wisp_coll_next(c);
    wisp_coll_reuse_line(c, p);
    wisp_coll_line(c, c->rank, p)->aux =
        wisp_shm_heap_holds(in, bytes) ? (uint64_t)(uintptr_t)in : 0;
    wisp_coll_publish(c, p);
    wisp_coll_wait_all(c, p);
    *phase = p;
    for (int m = 0; m < c->size; m++)
        if (!wisp_coll_line(c, m, p)->aux)
            return false;
    return true;
}
