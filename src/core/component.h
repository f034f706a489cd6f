/*
 * The components of wisp above core (the shared heap, the ghosts, the
 * idle-thread team, the point-to-point engine, the progress thread). core
 * starts them in order once the MPI, the configuration and the topology
 * are up, stops them in reverse order before the MPI finalizes, and reads
 * their counters (WISP_STATS, the counters of wisp.h); it knows them only
 * through this table, so that nothing in core includes a component
 * (src/components.c fills it in).
 */
#ifndef WISP_CORE_COMPONENT_H
#define WISP_CORE_COMPONENT_H

#pragma GCC visibility push(hidden)

#include <stdint.h>

struct wisp_component {
    const char *name;
    void (*start)(int thread_level); /* collective over MPI_COMM_WORLD */
    void (*stop)(void);
    uint64_t (*counter)(const char *name); /* 0 for a name it does not count; may be NULL */
};

/* In start order, ending with an entry whose name is NULL. */
extern const struct wisp_component wisp_components[];

/* Counter `counter` of component `component`: 0 where either is unknown. */
uint64_t wisp_core_component_counter(const char *component, const char *counter);

#pragma GCC visibility pop

#endif
