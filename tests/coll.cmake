# The node's collectives' tests (tests/mpi/coll_*.c, docs/coll.md): plain MPI
# programs that assert MPI's semantics, so they pass natively too; `served`
# also checks that wisp ran the collectives and that an allreduce gives the
# bits of the fold in rank order, `passed` that the MPI ran them all.
set(coll_quick)
if(WISP_SANITIZE)
  set(coll_quick quick) # the 1 MiB sizes are slow under the sanitizers
endif()
# wisp_add_coll_tests(name ACROSS args...): tests/mpi/<name>.c in the
# settings that coll_ops, coll_move and coll_more share: served with 2 to 4
# processes (3 and 4 with WISP_COLL=on, since auto leaves some calls to the
# MPI; 2 under auto), with WISP_COLL=on and with a 4 KiB staging area (many chunks
# per call); the MPI's alone (`passed`) with WISP_COLL=off, without the
# shared heap, with nodes of one process, and with no room in the heap for
# a communicator's area (a 1 MiB partition, 64 MiB of staging asked for:
# the MPI's, every call, never a hang); and on two virtual nodes of two
# with the ACROSS arguments.
function(wisp_add_coll_tests name)
  cmake_parse_arguments(C "" "" "ACROSS" ${ARGN})
  wisp_add_mpi_test(${name} NP 2 ARGS served ${coll_quick})
  wisp_add_mpi_test(${name} NP 3 ENV WISP_COLL=on ARGS served quick)
  wisp_add_mpi_test(${name} NP 4 ENV WISP_COLL=on ARGS served quick)
  wisp_add_mpi_test(${name} NP 2 ENV WISP_COLL=on SUFFIX .on ARGS served ${coll_quick})
  wisp_add_mpi_test(${name} NP 3 ENV WISP_COLL_STAGE=4k WISP_COLL_AFTER=0 SUFFIX .stage4k
                    ARGS served quick)
  foreach(setting IN ITEMS "off;WISP_COLL=off" "shm_off;WISP_SHM=off" "vnode1;WISP_VNODE_SIZE=1"
                           "heap_full;WISP_HEAP_SIZE=1M;WISP_COLL_STAGE=64M")
    list(POP_FRONT setting suffix)
    wisp_add_mpi_test(${name} NP 2 ENV ${setting} SUFFIX .${suffix} ARGS passed quick)
  endforeach()
  wisp_add_mpi_test(${name} NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS ${C_ACROSS})
endfunction()

# Two virtual nodes of two: the world spans both nodes and runs in stages
# (src/coll/hier.h); the halves of even and odd ranks hold one process on
# each node and go to the MPI; the pairs of consecutive ranks are nodes of
# their own (coll_ops: served in stages, `across`; coll_move and coll_more:
# `some`). Three processes: a node of two and a node of one.
wisp_add_coll_tests(coll_ops ACROSS across quick)
wisp_add_mpi_test(coll_ops NP 3 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS across quick)
# The collectives that move blocks (gathers, scatters, allgathers), and the
# all-to-alls, reduce-scatters and scans (coll_more).
wisp_add_coll_tests(coll_move ACROSS some quick)
wisp_add_coll_tests(coll_more ACROSS some quick)

# A pending wildcard receive whose remote sender waits for it while the
# receiver is in a collective that wisp serves (it must ask the MPI
# meanwhile), and collectives on several communicators at once from
# threads.
wisp_add_mpi_test(coll_lent NP 4 ENV WISP_VNODE_SIZE=2 WISP_COLL=on SUFFIX .vnode2 ARGS served)
wisp_add_mpi_test(coll_lent NP 4 ENV WISP_VNODE_SIZE=2 WISP_COLL=off SUFFIX .vnode2.off)
# Communicators made and freed by the thousand in a 32 MiB partition of the
# heap, which holds some 60 areas at once: every one served to the last
# only if each area goes back when its communicator is freed (and across
# virtual nodes, the node's and leaders' communicators too).
wisp_add_mpi_test(coll_churn NP 2 ENV WISP_HEAP_SIZE=32M ARGS served)
wisp_add_mpi_test(coll_churn NP 4 ENV WISP_HEAP_SIZE=32M WISP_VNODE_SIZE=2 SUFFIX .vnode2
                  ARGS served quick)
# Erroneous calls (a root out of range, MPI_OP_NULL) return the MPI's error
# class, on one node and across virtual nodes.
wisp_add_mpi_test(coll_errors NP 2)
wisp_add_mpi_test(coll_errors NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2)
# Neighbour collectives on Cartesian grids, a graph and a distributed graph,
# through wisp's point-to-point engine (and across virtual nodes partly
# through the MPI), and the MPI's under WISP_COLL=off.
wisp_add_mpi_test(coll_neighbor NP 2 ARGS served)
wisp_add_mpi_test(coll_neighbor NP 3 ARGS served)
wisp_add_mpi_test(coll_neighbor NP 4 ARGS served)
wisp_add_mpi_test(coll_neighbor NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS served)
# A node of two and a node of one, whose engine serves no communicator:
# every member goes to the MPI (agreed when the neighbours are made; a
# hang while the pair waited in the engine, found by mpi4py's
# test_cco_ngh_buf).
wisp_add_mpi_test(coll_neighbor NP 3 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2)
wisp_add_mpi_test(coll_neighbor NP 2 ENV WISP_COLL=off SUFFIX .off)
# Collectives and a ping-pong while busy threads load every core, one rank
# now and then late (core/wait.h's policy: waits that give their core
# away, and never sleep without a waker).
wisp_add_mpi_test(coll_loaded NP 2 ARGS served)
wisp_add_mpi_test(coll_threads NP 2 ARGS served)
wisp_add_mpi_test(coll_threads NP 3 ARGS served)
# The nonblocking collectives (src/coll/nb.h): served on one node (3
# processes and the 4 KiB staging area under WISP_COLL=on, where wisp serves
# every gather, scatter and all-to-all, v forms too), with a
# 4 KiB staging area (many phases each), with the progress thread, beside
# a ghost process (the application's world is two of three), on pairs
# of virtual nodes of two, whose world and interleaved world span them
# (the barrier, broadcasts and reductions in stages, src/coll/hier.h: with
# 4 and 3 processes, with the progress thread, and the MPI's where the MPI
# runs below MPI_THREAD_MULTIPLE), and the MPI's alone with WISP_COLL=off
# and without the heap.
wisp_add_mpi_test(coll_nb NP 2 ARGS served ${coll_quick})
wisp_add_mpi_test(coll_nb NP 3 ENV WISP_COLL=on ARGS served quick)
wisp_add_mpi_test(coll_nb NP 2 ENV WISP_COLL=on WISP_COLL_STAGE=4k SUFFIX .stage4k
                  ARGS served quick)
wisp_add_mpi_test(coll_nb NP 2 ENV WISP_PROGRESS=thread SUFFIX .thread ARGS served quick)
wisp_add_mpi_test(coll_nb NP 3 ENV WISP_GHOSTS=1 SUFFIX .ghosts1 ARGS served quick)
wisp_add_mpi_test(coll_nb NP 4 ENV WISP_COLL=on WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS pairs across quick)
wisp_add_mpi_test(coll_nb NP 3 ENV WISP_COLL=on WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS across quick)
wisp_add_mpi_test(coll_nb NP 4 ENV WISP_COLL=on WISP_VNODE_SIZE=2 WISP_PROGRESS=thread SUFFIX .vnode2.thread
                  ARGS across quick)
wisp_add_mpi_test(coll_nb NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2.single
                  ARGS pairs across single quick)
wisp_add_mpi_test(coll_nb NP 2 ENV WISP_COLL=off SUFFIX .off ARGS passed quick)
wisp_add_mpi_test(coll_nb NP 2 ENV WISP_SHM=off SUFFIX .shm_off ARGS passed quick)
# MPI-4's persistent collectives (src/coll/persist.h): lanes of their own,
# served on one node with 2 and 3 processes; on two virtual nodes of two
# the world's are the MPI's and the pairs' wisp's; the MPI's alone with
# WISP_COLL=off. Open MPI 4.1 has none (its MPIX_*_init stay the MPI's):
# the program says so and passes.
wisp_add_mpi_test(coll_persist NP 2 ENV WISP_COLL=on ARGS served ${coll_quick})
wisp_add_mpi_test(coll_persist NP 3 ENV WISP_COLL=on ARGS served quick)
wisp_add_mpi_test(coll_persist NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS quick)
wisp_add_mpi_test(coll_persist NP 2 ENV WISP_COLL=off SUFFIX .off ARGS passed quick)
# No heap room for the lanes (coll_persist.c's no_room): the MPI's requests run them.
wisp_add_mpi_test(coll_persist NP 2 ENV WISP_COLL=on WISP_HEAP_SIZE=4M SUFFIX .no_room ARGS no_room)
# A nonblocking all-to-all whose member finds no room in the heap for the
# blocks it sends (src/coll/alltoall.c streams them through its staging
# half, agreed in the call's phases; before, the job ended): the last
# rank's partition full, or every rank's (32 MiB partitions, filled by the
# program after the world's area is set up), and none, with 2 and 3
# processes, and with a 4 KiB staging area (hundreds of phases a call).
# Each must say it had no room (WISP_VERBOSE=1), or the test proves
# nothing.
wisp_add_mpi_test(coll_nb_outbox NP 3 ENV WISP_COLL=on WISP_HEAP_SIZE=32M SUFFIX .none
                  ARGS none served)
foreach(run "2;one;256k" "2;all;256k" "3;one;256k" "3;all;256k" "3;one;4k")
  list(GET run 0 np)
  list(GET run 1 who)
  list(GET run 2 stage)
  set(test mpi.coll_nb_outbox.np${np}.${who})
  if(NOT stage STREQUAL "256k")
    string(APPEND test .stage${stage})
  endif()
  add_test(NAME ${test}
           COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/until_seen.sh" 0
                   "no room in the shared heap for [0-9]+ bytes to send" --
                   "${WISP_WISPRUN}" --env WISP_COLL=on --env WISP_HEAP_SIZE=32M
                   --env WISP_COLL_STAGE=${stage} --env WISP_VERBOSE=1 -n ${np}
                   $<TARGET_FILE:t_coll_nb_outbox> ${who} served)
  wisp_test_properties(${test} ${np} mpi)
endforeach()
