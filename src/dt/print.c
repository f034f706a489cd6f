/*
 * A description as text, one node a line, indented by depth: what the
 * engine made of a type, for tests and for debugging a layout.
 */
#include "dt/desc.h"

#include <inttypes.h>
#include <stdio.h>

static void print_node(const wisp_dt_desc_t *d, const struct wisp_dt_node *n, int depth, FILE *f)
{
    static const char *const kinds[] = {
#define WISP_DT_KIND(kind, name) [kind] = name,
        WISP_DT_KINDS(WISP_DT_KIND)
#undef WISP_DT_KIND
    };
    fprintf(f, "%*s%s off %" PRId64 " size %" PRIu64 " extent %" PRId64, 2 * depth, "",
            kinds[n->kind], n->off, n->size, n->extent);
    switch (n->kind) {
    case WISP_DT_BLOCKS:
        fprintf(f, " count %" PRId64 " x %" PRIu64 " B stride %" PRId64 "\n", n->count, n->blen,
                n->stride);
        return;
    case WISP_DT_VECTOR:
        fprintf(f, " count %" PRId64 " stride %" PRId64 "\n", n->count, n->stride);
        print_node(d, &d->nodes[n->child], depth + 1, f);
        return;
    case WISP_DT_RUNS:
    case WISP_DT_INDEXED:
    case WISP_DT_STRUCT:
        fprintf(f, " count %" PRId64 ":", n->count);
        for (int64_t i = 0; i < n->count && i < 8; i++)
            fprintf(f, " %" PRId64 "@%" PRId64, wisp_dt_node_lens(d, n)[i],
                    wisp_dt_node_displs(d, n)[i]);
        fprintf(f, "%s\n", n->count > 8 ? " ..." : "");
        if (n->kind == WISP_DT_INDEXED)
            print_node(d, &d->nodes[n->child], depth + 1, f);
        if (n->kind == WISP_DT_STRUCT)
            for (int64_t i = 0; i < n->count; i++)
                print_node(d, &d->nodes[wisp_dt_node_children(d, n)[i]], depth + 1, f);
        return;
    default:
        fputc('\n', f);
    }
}

void wisp_dt_desc_print(const wisp_dt_desc_t *desc, void *file)
{
    FILE *f = file;
    fprintf(f,
            "size %" PRIu64 " lb %" PRId64 " extent %" PRId64 " true_lb %" PRId64
            " true_extent %" PRId64 "%s\n",
            desc->size, desc->lb, desc->extent, desc->true_lb, desc->true_ext,
            desc->dense ? " dense" : "");
    print_node(desc, &desc->nodes[desc->root], 1, f);
}
