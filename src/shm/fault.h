/*
 * The shared heap's page faults (fault.c): a page that tmpfs cannot back
 * when it is first touched becomes private to the process instead of
 * raising SIGBUS, and the node-shared table of chunk states (heap.h) keeps
 * every other process off such memory.
 */
#ifndef WISP_SHM_FAULT_H
#define WISP_SHM_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Bytes of the heap file after the heap's `span` that hold the chunk table. */
size_t wisp_shm_fault_table_bytes(size_t span);

/* Maps and commits the chunk table at `span` in the heap file `fd`: false
 * (said with WISP_VERBOSE) when /dev/shm has no room for it. Sets
 * wisp_shm_heap.chunks. */
bool wisp_shm_fault_table_map(int fd, size_t span);
void wisp_shm_fault_table_unmap(size_t span);

/* The heap serves: catch SIGBUS from now on (once per process). `fd` is
 * the heap file, committed into when a faulting page finds room again. */
void wisp_shm_fault_start(int fd);

/* [start, start + size) of the heap was committed (fallocate): the chunks
 * it covers whole are BACKED. */
void wisp_shm_fault_committed(const char *start, size_t size);

/* The pages of [from, from + len) that this process made private, copied
 * into `to` (the fork copy of its partition, which the file does not hold). */
void wisp_shm_fault_overlay(char *to, const char *from, size_t len);

/* In a child of fork(): no heap file any more, the table is the parent's. */
void wisp_shm_fault_forked(void);

/* How many pages this process made private so far. */
size_t wisp_shm_fault_private_pages(void);

#pragma GCC visibility pop

#endif
