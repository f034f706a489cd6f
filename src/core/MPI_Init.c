/* MPI_Init: the underlying MPI's, with wisp's start-up around it. */
#include <stddef.h>

#include "core/init.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Init(int *argc, char ***argv)
{
    return wisp_core_init(argc, argv, -1, NULL);
}
