# One-sided communication served by ghost processes (issue 4): each program
# runs without ghosts (the MPI's own windows), with 1 and 2 ghosts per node,
# and with virtual nodes so that targets are on other nodes. The programs
# assert their own results; see docs/ghosts.md. WISP_GHOST_WINDOWS=on makes
# the ghosts serve the windows with Open MPI too (its default is not to).
set(on WISP_GHOST_WINDOWS=on)

# wisp_add_rma_test(name USERS n [ARGS a...] [VNODE_GHOSTS2]): `n` application
# processes, natively and with 1 and 2 ghosts; and 2 application processes on
# virtual nodes of one application process and one ghost, so every target is
# on another node (3-5 processes in all). VNODE_GHOSTS2 adds 2 application
# processes on virtual nodes of one application process and 2 ghosts (6).
function(wisp_add_rma_test name)
  cmake_parse_arguments(T "VNODE_GHOSTS2" "USERS;SUFFIX" "ARGS" ${ARGN})
  set(n ${T_USERS})
  math(EXPR n1 "${n} + 1")
  math(EXPR n2 "${n} + 2")
  wisp_add_mpi_test(${name} NP ${n} SUFFIX "${T_SUFFIX}.ghosts0" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP ${n1} ENV WISP_GHOSTS=1 ${on} SUFFIX "${T_SUFFIX}.ghosts1" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP ${n2} ENV WISP_GHOSTS=2 ${on} SUFFIX "${T_SUFFIX}.ghosts2" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP 4 ENV WISP_GHOSTS=1 WISP_VNODE_SIZE=2 ${on}
                    SUFFIX "${T_SUFFIX}.vnode2.ghosts1" ARGS ${T_ARGS})
  if(T_VNODE_GHOSTS2)
    wisp_add_mpi_test(${name} NP 6 ENV WISP_GHOSTS=2 WISP_VNODE_SIZE=3 ${on}
                      SUFFIX "${T_SUFFIX}.vnode3.ghosts2" ARGS ${T_ARGS})
  endif()
endfunction()

wisp_add_rma_test(rma_ops USERS 3)
wisp_add_rma_test(rma_ops USERS 2 SUFFIX .shared ARGS shared)
wisp_add_rma_test(rma_ops USERS 2 SUFFIX .nolocks ARGS nolocks)
wisp_add_rma_test(rma_atomicity USERS 3)
wisp_add_rma_test(rma_counter USERS 3)
wisp_add_rma_test(rma_attrs USERS 3)
wisp_add_rma_test(rma_epochs USERS 3)

# The matrix of synchronization modes, completions, operations and datatypes
# (3 application processes, and a pair: then each one's target is the other).
wisp_add_rma_test(rma_matrix USERS 3 VNODE_GHOSTS2)
wisp_add_rma_test(rma_matrix USERS 2 SUFFIX .pair)
wisp_add_rma_test(rma_matrix USERS 3 SUFFIX .shared ARGS shared)
# Simultaneous epochs of different kinds on disjoint groups (Casper 4.5.4);
# with virtual nodes of 2 application processes and 1 ghost, each group of
# two is one node whose ghost serves the group's windows and the world's.
wisp_add_rma_test(rma_simultaneous USERS 3 VNODE_GHOSTS2)
wisp_add_rma_test(rma_simultaneous USERS 4 SUFFIX .groups2)
wisp_add_mpi_test(rma_simultaneous NP 6 ENV WISP_GHOSTS=1 WISP_VNODE_SIZE=3 ${on}
                  SUFFIX .vnode3.ghosts1)

# The info hints epochs_used (every separator, values not understood) and
# no_locks: exclusive locks exclude each other, or fail where a hint ruled
# them out (4 application processes: lost updates show within a few runs).
wisp_add_mpi_test(rma_hints NP 4 SUFFIX .ghosts0)
wisp_add_mpi_test(rma_hints NP 5 ENV WISP_GHOSTS=1 ${on} SUFFIX .ghosts1 ARGS served)

# MPI_THREAD_MULTIPLE: windows created and freed from two threads at once,
# each on its own communicator; and a flush in one thread racing with
# another thread's accumulate and flush, with 2 ghosts sharing the target.
wisp_add_mpi_test(ghost_threads NP 2 SUFFIX .create.ghosts0 ARGS create)
wisp_add_mpi_test(ghost_threads NP 3 ENV WISP_GHOSTS=1 ${on} SUFFIX .create.ghosts1 ARGS create)
wisp_add_mpi_test(ghost_threads NP 3 SUFFIX .flush.ghosts0 ARGS flush)
wisp_add_mpi_test(ghost_threads NP 5 ENV WISP_GHOSTS=2 WISP_GHOST_BINDING=segment ${on}
                  SUFFIX .flush.ghosts2 ARGS flush)

# Windows at neighbouring addresses of one page, one after another: each
# its own base (MPICH over UCX's registration cache gave the old one).
wisp_add_mpi_test(rma_same_page NP 2 SUFFIX .ghosts0)
wisp_add_mpi_test(rma_same_page NP 3 ENV WISP_GHOSTS=1 ${on} SUFFIX .ghosts1)

# A thousand windows at once: past WISP_GHOST_WINDOWS_MAX (4 here, to keep
# it short) they are the MPI's own, and the MPI's communicator contexts last.
# Windows over the same processes in different orders, alive at once: the
# kept internal communicator of the whole world serves only its own order
# (operations routed to the target itself, WISP_ASYNC=off, name the process
# by its rank there).
wisp_add_rma_test(ghost_icomm USERS 3)
wisp_add_mpi_test(ghost_icomm NP 4 ENV WISP_GHOSTS=1 WISP_ASYNC=off ${on} SUFFIX .ghosts1.off)
# Gets of single ints served by a ghost, 50 fence epochs (MPICH's
# rma/test5_am): all landed after the closing fence (before wisp flushed
# internal windows target by target, about a tenth of the epochs had not).
wisp_add_mpi_test(ghost_fence_gets NP 3 ENV WISP_GHOSTS=1 ${on} SUFFIX .ghosts1)
wisp_add_mpi_test(rma_many_windows NP 2 SUFFIX .ghosts0)
wisp_add_mpi_test(rma_many_windows NP 3 ENV WISP_GHOSTS=1 ${on} WISP_GHOST_WINDOWS_MAX=4
                  SUFFIX .ghosts1)

# Adaptive progress (issue 28): the route of each process's operations
# (ghost or direct) switched at MPI_Win_set_info by hints, at fences by the
# processes' profiles, between safe points by live profiles (puts and
# gets), and a sleeping ghost woken by the switch; counters
# and accumulate ordering exact across 100 switches.
wisp_add_mpi_test(ghost_async NP 3 SUFFIX .hint.ghosts0 ARGS hint)
wisp_add_mpi_test(ghost_async NP 4 ENV WISP_GHOSTS=1 ${on} SUFFIX .hint.ghosts1 ARGS hint)
wisp_add_mpi_test(ghost_async NP 5 ENV WISP_GHOSTS=2 WISP_GHOST_BINDING=segment ${on}
                  SUFFIX .hint.ghosts2 ARGS hint)
wisp_add_mpi_test(ghost_async NP 4 ENV WISP_GHOSTS=1 WISP_VNODE_SIZE=2 ${on}
                  SUFFIX .hint.vnode2 ARGS hint)
# The profile tests take gaps of 50 us and more as computing (the rule for
# processes with cores of their own), the hardest on this loaded machine:
# a process descheduled between two calls must not be taken for one that
# computes (the profile takes the kernel's run delay out: core/profile.h).
wisp_add_mpi_test(ghost_async NP 3 ENV WISP_GHOSTS=1 WISP_ASYNC=auto WISP_ASYNC_INTERVAL=5
                  WISP_ASYNC_GAP=50 ${on} SUFFIX .profile ARGS profile)
wisp_add_mpi_test(ghost_async NP 3 ENV WISP_GHOSTS=1 WISP_ASYNC=off ${on} SUFFIX .wake ARGS wake)
wisp_add_mpi_test(ghost_async NP 3 SUFFIX .live.ghosts0 ARGS live)
wisp_add_mpi_test(ghost_async NP 3 ENV WISP_GHOSTS=1 WISP_ASYNC=auto ${on} SUFFIX .gets ARGS gets)
wisp_add_mpi_test(ghost_async NP 4 ENV WISP_GHOSTS=1 WISP_ASYNC=auto WISP_ASYNC_INTERVAL=10
                  WISP_ASYNC_GAP=50 ${on} SUFFIX .live ARGS live)

# Windows one after another and alive together, of every kind and size, each
# checked in every epoch kind: under ghosts a window in the heap takes the
# internal windows one before it left (src/ghost/pool.h); with WISP_ASYNC=off
# its targets serve the operations themselves, from the heap they expose.
wisp_add_rma_test(ghost_window_reuse USERS 2)
wisp_add_mpi_test(ghost_window_reuse NP 3 ENV WISP_GHOSTS=1 WISP_ASYNC=off ${on}
                  SUFFIX .ghosts1.off)
wisp_add_mpi_test(ghost_window_reuse NP 3 ENV WISP_GHOSTS=1 WISP_ASYNC=auto ${on}
                  SUFFIX .ghosts1.auto)
# A heap too small for rank 0's windows: they take new segments, decided
# together, and work the same.
wisp_add_mpi_test(ghost_window_reuse NP 3 ENV WISP_GHOSTS=1 WISP_HEAP_SIZE=1M ${on}
                  SUFFIX .ghosts1.heap_full ARGS 12 full)
