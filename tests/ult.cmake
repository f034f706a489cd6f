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
# WISP_PROGRESS=auto, with a core of its own: asleep through a phase with
# MPI, awake for the message of the computing phase after it, through the
# MPI and the engine. The "own" core is one of this machine's two, where
# the looks deschedule a process between calls (the profile takes such
# waits out: core/profile.h).
foreach(vnode "WISP_VNODE_SIZE=1;.auto.vnode1" ";.auto")
  list(GET vnode 0 env)
  list(GET vnode 1 suffix)
  wisp_add_mpi_test(progress_thread NP 2 ENV WISP_PROGRESS=auto WISP_PROGRESS_LINGER=2000
                    WISP_PROGRESS_CORES=1 WISP_PROGRESS_INTERVAL=1000 WISP_ASYNC_INTERVAL=50 ${env}
                    SUFFIX ${suffix} ARGS auto)
endforeach()

# The thread-level matrix (docs/ult.md, "Thread levels"; issue 26): each
# requested level under wisp's features that call the MPI from threads of
# their own, with ULTs on one or two kernel threads; every case works, or
# works with one line saying what wisp turned off (tests/thread_levels.sh).
wisp_test_program(t_thread_levels "${CMAKE_CURRENT_SOURCE_DIR}/mpi/thread_levels.c")
target_link_libraries(t_thread_levels PRIVATE wisp)
# thread_level_case(SUFFIX NP LEVEL THREADS LINE NAME=VALUE...)
function(thread_level_case suffix np level threads line)
  wisp_add_script_test(thread_levels.${level}${suffix} NP ${np}
                       "${CMAKE_CURRENT_SOURCE_DIR}/thread_levels.sh" "${WISP_WISPRUN}"
                       $<TARGET_FILE:t_thread_levels> ${np} ${level} ${threads} "${line}" ${ARGN})
endfunction()
# ULTs on two kernel threads at every level: the MPI gets
# MPI_THREAD_MULTIPLE, the application the level it asked for (item 4).
foreach(level init single funneled serialized multiple ult)
  thread_level_case(.ult2 2 ${level} 2 - WISP_ULT_THREADS=2)
endforeach()
thread_level_case(.progress 2 funneled 1 - WISP_PROGRESS=thread)
thread_level_case(.progress 2 ult 1 - WISP_PROGRESS=thread)
thread_level_case(.progress.ult2 2 serialized 2 - WISP_PROGRESS=thread WISP_ULT_THREADS=2)
thread_level_case(.ghost.ult2 3 funneled 2 - WISP_GHOSTS=1 WISP_ULT_THREADS=2)
thread_level_case(.ghost.progress 3 single 1 - WISP_GHOSTS=1 WISP_PROGRESS=thread)
# Open MPI's osc pt2pt (TCP) refuses MPI_THREAD_MULTIPLE at window
# creation: the progress thread is off and ULTs stay on one kernel thread,
# each said in one line (item 5); at WISP_THREAD_ULT on one kernel thread
# the MPI needs only MPI_THREAD_SERIALIZED.
if(WISP_MPI STREQUAL "openmpi")
  set(pt2pt OMPI_MCA_btl=tcp,self OMPI_MCA_osc=pt2pt)
  set(refuses "Open MPI's one-sided component osc pt2pt (MCA osc='pt2pt') refuses MPI_THREAD_MULTIPLE")
  thread_level_case(.pt2pt.progress 2 funneled 1
                    "wisp[0]: no progress thread: ${refuses}, which WISP_PROGRESS=thread would need"
                    WISP_PROGRESS=thread ${pt2pt})
  thread_level_case(.pt2pt.ult2 2 funneled 1
                    "wisp[0]: user-level threads on one kernel thread: ${refuses}, which WISP_ULT_THREADS>1 would need"
                    WISP_ULT_THREADS=2 ${pt2pt})
  thread_level_case(.pt2pt.progress.ult2 2 ult 1
                    "wisp[0]: no progress thread and user-level threads on one kernel thread: ${refuses}"
                    WISP_PROGRESS=thread WISP_ULT_THREADS=2 ${pt2pt})
  thread_level_case(.pt2pt 2 ult 1 - ${pt2pt})
endif()
