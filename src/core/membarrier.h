/*
 * membarrier(2), which glibc does not wrap: the slow side of an asymmetric
 * Dekker handshake. A thread that rarely needs to see what the
 * application's threads stored (the rescuer, the progress thread) makes
 * every thread of the process execute a full memory barrier, so that the
 * application's frequent side needs no fence and no locked instruction.
 */
#ifndef WISP_CORE_MEMBARRIER_H
#define WISP_CORE_MEMBARRIER_H

#include <linux/membarrier.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Before wisp_membarrier; false where the kernel lacks it. The process
 * registers once, as libwisp is loaded (membarrier.c): once it has
 * threads, which MPI_Init starts, the kernel's registration waits for an
 * RCU grace period (15 ms a process here). */
#pragma GCC visibility push(hidden)

bool wisp_membarrier_register(void);

static inline void wisp_membarrier(void)
{
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

#pragma GCC visibility pop

#endif
