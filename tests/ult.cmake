# User-level threads (src/ult, docs/ult.md): blocking MPI calls made in ULTs
# yield, with the engine, on virtual nodes, with a ghost, and with ULTs on
# two kernel threads (MPI_THREAD_MULTIPLE underneath).
wisp_add_mpi_test(ult_mpi NP 2)
wisp_add_mpi_test(ult_mpi NP 2 ENV WISP_VNODE_SIZE=1 SUFFIX .vnode1)
wisp_add_mpi_test(ult_mpi NP 3 ENV WISP_GHOSTS=1 SUFFIX .ghost1)
wisp_add_mpi_test(ult_mpi NP 2 ENV WISP_ULT_THREADS=2 SUFFIX .threads2)
