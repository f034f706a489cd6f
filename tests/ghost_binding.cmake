# Several ghosts per node (docs/ghosts.md): the RMA programs of rma.cmake
# again with static segment binding and with each dynamic load mode, with 2
# ghosts serving 3 application processes of one node (5 processes; 2 ghosts
# on nodes of remote targets would take 6). Programs that split operations
# across segments, and MPI_Win_create on the shared heap.
set(on WISP_GHOST_WINDOWS=on)

foreach(mode BINDING=segment LOAD=random LOAD=op LOAD=byte)
  string(REGEX REPLACE ".*=" "" word ${mode})
  foreach(prog rma_ops rma_atomicity rma_counter rma_epochs rma_attrs)
    wisp_add_mpi_test(${prog} NP 5 ENV WISP_GHOSTS=2 WISP_GHOST_${mode} ${on} SUFFIX .ghosts2.${word})
  endforeach()
endforeach()
# The shared flavor lays the processes' memory back to back: segments cut it unaligned.
wisp_add_mpi_test(rma_ops NP 4 ENV WISP_GHOSTS=2 WISP_GHOST_BINDING=segment ${on}
                  SUFFIX .shared.ghosts2.segment ARGS shared)

# Operations over segment boundaries: natively, with 1 ghost on virtual nodes
# (remote targets), with 2 ghosts and segment binding (split, checked by
# ghost_split.sh), and with segments and random load together.
wisp_add_mpi_test(ghost_segments NP 3 SUFFIX .ghosts0)
wisp_add_mpi_test(ghost_segments NP 4 ENV WISP_GHOSTS=1 WISP_VNODE_SIZE=2 ${on} SUFFIX .vnode2.ghosts1)
wisp_add_mpi_test(ghost_segments NP 5 ENV WISP_GHOSTS=2 WISP_GHOST_BINDING=segment ${on}
                  SUFFIX .ghosts2.segment)
wisp_add_mpi_test(ghost_segments NP 5 ENV WISP_GHOSTS=2 WISP_GHOST_BINDING=segment
                  WISP_GHOST_LOAD=random ${on} SUFFIX .ghosts2.segment.random)
wisp_add_script_test(ghost_split NP 5 "${CMAKE_CURRENT_SOURCE_DIR}/ghost_split.sh" "${WISP_WISPRUN}"
                     $<TARGET_FILE:t_ghost_segments>)

# MPI_Win_create on heap memory, with a target busy outside MPI: ghosts only,
# and always to them (WISP_ASYNC=on: under the default, auto, the target's
# profile before the window, all MPI, may route direct at its creation).
wisp_add_mpi_test(ghost_heap_window NP 4 ENV WISP_GHOSTS=1 WISP_ASYNC=on ${on} SUFFIX .ghosts1)
wisp_add_mpi_test(ghost_heap_window NP 5 ENV WISP_GHOSTS=2 WISP_ASYNC=on ${on} SUFFIX .ghosts2)
wisp_add_mpi_test(ghost_heap_window NP 5 ENV WISP_GHOSTS=2 WISP_ASYNC=on WISP_GHOST_BINDING=segment
                  WISP_GHOST_LOAD=op ${on} SUFFIX .ghosts2.segment.op)
wisp_add_mpi_test(ghost_heap_window NP 4 ENV WISP_GHOSTS=1 WISP_ASYNC=on WISP_VNODE_SIZE=2 ${on}
                  SUFFIX .vnode2.ghosts1)

# Ghost placement with hwloc: the binding the ghost reports from the kernel.
wisp_add_script_test(ghost_bind NP 3 "${CMAKE_CURRENT_SOURCE_DIR}/ghost_bind.sh" "${WISP_WISPRUN}"
                     $<TARGET_FILE:t_topology>)

# The elements split operations are cut into (src/ghost/elements.c, compiled
# into the program with src/dt: both are hidden in libwisp): the datatype
# engine's offsets against MPI_Pack's, for random derived types of one leaf
# type (and some of several); seed 1 also prints the cost of either way.
foreach(seed 1 2)
  wisp_add_mpi_test(ghost_elements NP 1 SUFFIX .seed${seed} ARGS ${seed})
endforeach()
# wisp_dt_sources: the engine's copy and its team's, as tests/dt.cmake lists them
target_sources(t_ghost_elements PRIVATE ${wisp_dt_sources} "${PROJECT_SOURCE_DIR}/src/ghost/elements.c")
target_include_directories(t_ghost_elements PRIVATE "${PROJECT_SOURCE_DIR}/src")
