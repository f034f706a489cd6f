/*
 * The components of wisp above core (the shared heap, the ghosts, the
 * point-to-point engine). core starts them in order once the MPI, the
 * configuration and the topology are up, and stops them in reverse order
 * before the MPI finalizes; it knows them only through this table, so that
 * nothing in core includes a component (src/components.c fills it in).
 */
#ifndef WISP_CORE_COMPONENT_H
#define WISP_CORE_COMPONENT_H

#pragma GCC visibility push(hidden)

struct wisp_component {
    const char *name;
    void (*start)(int thread_level); /* collective over MPI_COMM_WORLD */
    void (*stop)(void);
};

/* In start order, ending with an entry whose name is NULL. */
extern const struct wisp_component wisp_components[];

#pragma GCC visibility pop

#endif
