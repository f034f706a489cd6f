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

/* Once per process before wisp_membarrier; false where the kernel lacks it. */
static inline bool wisp_membarrier_register(void)
{
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static inline void wisp_membarrier(void)
{
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

#endif
