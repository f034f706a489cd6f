/*
 * mpi_init_finalized: environment queries around MPI_Init/MPI_Finalize.
 *
 * Checks MPI_Initialized/MPI_Finalized before MPI_Init, between MPI_Init
 * and MPI_Finalize, and after MPI_Finalize; MPI_Get_version before MPI_Init
 * and after (only "version >= 3" is printed); MPI_Get_processor_name and
 * MPI_Get_library_version return non-empty strings (which are not
 * printed); MPI_Wtime never goes backwards; MPI_Wtick is positive.
 * Designed for 1..2 processes.
 */
#include <mpi.h>

#include "check.h"

static int before_init, before_finalized, version_before, subversion_before;

static int check_after_finalize(void)
{
    int initialized = 0, finalized = 0, failures = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    int version = 0, subversion = 0;
    MPI_Get_version(&version, &subversion);
    if (!initialized || !finalized || version != version_before) {
        fprintf(stderr, "FAIL [rank %d] after finalize: initialized=%d finalized=%d\n", tr_rank,
                initialized, finalized);
        failures++;
    }
    tr_print("after finalize: initialized=%d finalized=%d version unchanged=%d\n", initialized,
             finalized, version == version_before);
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Initialized(&before_init);
    MPI_Finalized(&before_finalized);
    MPI_Get_version(&version_before, &subversion_before);
    MPI_Init(&argc, &argv);
    tr_begin("mpi_init_finalized", 1, 0);

    CHECK(!before_init && !before_finalized, "state before MPI_Init");
    tr_print("before init: initialized=%d finalized=%d\n", before_init, before_finalized);

    int initialized = 0, finalized = 1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    CHECK(initialized && !finalized, "state after MPI_Init");
    tr_print("after init: initialized=%d finalized=%d\n", initialized, finalized);

    int version = 0, subversion = -1;
    MPI_Get_version(&version, &subversion);
    CHECK(version >= 3 && subversion >= 0, "version %d.%d", version, subversion);
    CHECK(version == MPI_VERSION && version == version_before, "version consistency");
    tr_print("version >= 3: %d, same as before init and MPI_VERSION: %d\n", version >= 3,
             version == MPI_VERSION && version == version_before);

    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len,
          "processor name length %d", len);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = 0;
    MPI_Get_library_version(lib, &liblen);
    CHECK(liblen > 0 && liblen < MPI_MAX_LIBRARY_VERSION_STRING, "library version length");
    tr_print("processor name length > 0: %d, library version length > 0: %d\n", len > 0,
             liblen > 0);

    double prev = MPI_Wtime(), tick = MPI_Wtick();
    int monotonic = 1;
    for (int i = 0; i < 1000; i++) {
        double now = MPI_Wtime();
        monotonic &= now >= prev;
        prev = now;
    }
    CHECK(monotonic, "MPI_Wtime went backwards");
    CHECK(tick > 0.0, "MPI_Wtick %g", tick);
    tr_print("wtime monotonic: %d, wtick > 0: %d\n", monotonic, tick > 0.0);

    return tr_finish_with(check_after_finalize);
}
