/* membarrier(2) registration, once, while the process has one thread. */
#include "core/membarrier.h"

static int registered = -1; /* -1: not yet; else whether the kernel agreed */

bool wisp_membarrier_register(void)
{
    if (registered < 0)
        registered = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    return registered;
}

__attribute__((constructor)) static void register_at_load(void)
{
    wisp_membarrier_register();
}
