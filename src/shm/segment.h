/*
 * Files in /dev/shm that every process of a node opens: named for the job
 * and made unguessable (/dev/shm/wisp-<WISP_JOB>+<use>-<random>; wisprun
 * removes the job's after a crash, and '+' ends the tag, which cannot hold
 * one) and unlinked as soon as all processes have them open, so a normal
 * end leaves nothing behind either.
 */
#ifndef WISP_SHM_SEGMENT_H
#define WISP_SHM_SEGMENT_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Collective over `node`: a sparse file of `size` bytes (see
 * wisp_shm_segment_commit), open in every process, already unlinked; `use`
 * names it ("heap", "ghost"). A name found taken (by another user of the
 * node) is replaced by another. Returns its descriptor, or -1 in every
 * process when any of them failed. */
int wisp_shm_segment_open(MPI_Comm node, const char *use, size_t size);

/* Creates (O_EXCL, mode 0600) a file in /dev/shm for `use` under a fresh
 * name, in name[size]: /wisp-<WISP_JOB>+<use>-<16 random hex digits>[-<index>,
 * when not negative] (/wisp+<use>-... without WISP_JOB), which others of
 * the node cannot guess and take first; another name when one is taken. Its
 * descriptor, or -1 with errno. */
int wisp_shm_create(char *name, size_t size, const char *use, int index);

/* Commits [offset, offset + size) of a segment (posix_fallocate), so that a
 * full /dev/shm fails here, cleanly, instead of raising SIGBUS when a page is
 * first touched later; on failure WISP_VERBOSE=1 says so, naming `use`.
 * Local: callers that commit parts of a segment agree on the outcome. */
bool wisp_shm_segment_commit(int fd, size_t offset, size_t size, const char *use);

/* Collective over `node`: whether `mine` holds in every process. */
bool wisp_shm_all_agree(bool mine, MPI_Comm node);

#pragma GCC visibility pop

#endif
