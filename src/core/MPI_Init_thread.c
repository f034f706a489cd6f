/* MPI_Init_thread: the underlying MPI's, with wisp's start-up around it. */
#include "core/init.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return wisp_core_init(argc, argv, required, provided);
}
