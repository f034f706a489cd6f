/* MPI_Finalize: wisp's report and clean-up, then the underlying MPI's. */
#include "core/init.h"
#include "wrap/impls.h"

int wisp_impl_MPI_Finalize(void)
{
    return wisp_core_finalize();
}
