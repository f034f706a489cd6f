# The differential tester (issue 26; tests/fuzz/, docs/testing.md): one
# interpreter that generates a point-to-point program from each seed, run
# natively and under wisp in the gate's settings; every receive's log must
# match. The CI part runs fixed seeds; `make fuzz N=...` runs more.
add_executable(t_p2p_fuzz "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/p2p_fuzz.c"
                          "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/schedule.c")
target_link_libraries(t_p2p_fuzz PRIVATE MPI::MPI_C)
# CI: fixed seeds (200 programs: mostly 2 processes, some 3 and 4, which
# are kept short), natively and in two settings each, in turn: wisp,
# vnode1, staged, progress, vnode2 (tests/fuzz/fuzz.py). No divergence under
# either MPI on 2026-11-27 (docs/testing.md). `make fuzz` runs more. Not in
# the sanitizer build, where every program would run 5-10 times slower.
if(NOT WISP_SANITIZE)
  add_test(NAME fuzz.p2p_differential
           COMMAND ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.py"
                   --wisprun "${WISP_WISPRUN}" --program $<TARGET_FILE:t_p2p_fuzz> --mpi ${WISP_MPI}
                   --first 1 --count 200)
  wisp_test_properties(fuzz.p2p_differential 2 fuzz)
  set_tests_properties(fuzz.p2p_differential PROPERTIES TIMEOUT 600)
endif()

# Findings cut down (tests/fuzz/reduce.py) to the messages that made them,
# each run ten times (they depended on timing) in the setting that failed.
if(NOT WISP_SANITIZE)
  add_test(NAME fuzz.case.seed199_np4_vnode2
           COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/case.sh" "${WISP_WISPRUN}"
                   $<TARGET_FILE:t_p2p_fuzz> "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/cases/seed199_np4_vnode2.keep"
                   199 4 10 WISP_VNODE_SIZE=2)
  wisp_test_properties(fuzz.case.seed199_np4_vnode2 4 fuzz)
endif()

# The collectives' differential tester (issue 52 item 7; tests/fuzz/coll_fuzz.c,
# coll_fuzz.py, docs/testing.md): random collectives of every kind, natively
# and under wisp's collectives' settings; every result bit for bit, float
# reductions within the spread of any order of evaluation (and the same bits
# on every rank of an allreduce under wisp).
add_executable(t_coll_fuzz "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/coll_fuzz.c"
                           "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/schedule.c")
target_link_libraries(t_coll_fuzz PRIVATE MPI::MPI_C m Threads::Threads ${CMAKE_DL_LIBS})
# CI: fixed seeds (50 programs: half on 2 processes, the rest on 3 and 4; one
# batch in three with two threads), natively and in two settings each, in
# turn: on, auto, stage4k, vnode2, shm_off, copy0 (coll_fuzz.py). About a
# minute per MPI on 2 cores. `make fuzz` runs more. Not in the sanitizer build.
if(NOT WISP_SANITIZE)
  add_test(NAME fuzz.coll_differential
           COMMAND ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/coll_fuzz.py"
                   --wisprun "${WISP_WISPRUN}" --program $<TARGET_FILE:t_coll_fuzz> --mpi ${WISP_MPI}
                   --first 1 --count 50)
  wisp_test_properties(fuzz.coll_differential 4 fuzz)
  set_tests_properties(fuzz.coll_differential PROPERTIES TIMEOUT 600)
endif()
# Its finding, seed 1048 on 4 processes under WISP_VNODE_SIZE=2 (the leaders'
# MPI_Reduce in place at a root other than 0: MPICH 4.0.2 crashed; fixed in
# 4e1f90a), natively and in that setting (a few seconds).
if(NOT WISP_SANITIZE)
  add_test(NAME fuzz.coll_case.seed1048_np4_vnode2
           COMMAND ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/fuzz/coll_fuzz.py"
                   --wisprun "${WISP_WISPRUN}" --program $<TARGET_FILE:t_coll_fuzz> --mpi ${WISP_MPI}
                   --first 1048 --count 1 --np 4:1 --settings vnode2)
  wisp_test_properties(fuzz.coll_case.seed1048_np4_vnode2 4 fuzz)
endif()
