/*
 * Work-arounds for bugs of the MPIs underneath that wisp's own behaviour
 * would expose: set before the MPI starts, reported once it has.
 */
#ifndef WISP_CORE_QUIRKS_H
#define WISP_CORE_QUIRKS_H

#pragma GCC visibility push(hidden)

/* Before PMPI_Init: adjust what the MPI reads from the environment. */
void wisp_core_quirks_before_init(void);

/* After PMPI_Init (the log knows the rank): say what was adjusted. */
void wisp_core_quirks_report(void);

#pragma GCC visibility pop

#endif
