# User-level threads (src/ult, docs/ult.md) and the progress thread
# (src/progress). Blocking MPI calls made in ULTs
# yield, with the engine, on virtual nodes, with a ghost, and with ULTs on
# two kernel threads (MPI_THREAD_MULTIPLE underneath).
wisp_add_mpi_test(ult_mpi NP 2)
wisp_add_mpi_test(ult_mpi NP 2 ENV WISP_VNODE_SIZE=1 SUFFIX .vnode1)
wisp_add_mpi_test(ult_mpi NP 3 ENV WISP_GHOSTS=1 SUFFIX .ghost1)
wisp_add_mpi_test(ult_mpi NP 2 ENV WISP_ULT_THREADS=2 SUFFIX .threads2)

# The progress thread (WISP_PROGRESS=thread): a message through the MPI
# (virtual nodes of one) and one through wisp's engine arrive while the
# receiver computes; the idle thread sleeps in the kernel; none without it.
wisp_add_mpi_test(progress_thread NP 2 ENV WISP_PROGRESS=thread WISP_PROGRESS_LINGER=2000
                  WISP_VNODE_SIZE=1 SUFFIX .vnode1)
wisp_add_mpi_test(progress_thread NP 2 ENV WISP_PROGRESS=thread WISP_PROGRESS_LINGER=2000
                  WISP_PROGRESS_CORES=1 SUFFIX .core)
# The same with WISP_STATS, where every call takes the hooked path and the
# thread hears of the calls there, not through the watched path (wrap.h).
wisp_add_mpi_test(progress_thread NP 2 ENV WISP_PROGRESS=thread WISP_PROGRESS_LINGER=2000
                  WISP_VNODE_SIZE=1 WISP_STATS=1 SUFFIX .vnode1.stats)
wisp_add_mpi_test(progress_thread NP 2 SUFFIX .off ARGS off)
