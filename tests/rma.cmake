# One-sided communication served by ghost processes (issue 4): each program
# runs without ghosts (the MPI's own windows), with 1 and 2 ghosts per node,
# and with virtual nodes so that targets are on other nodes. The programs
# assert their own results; see docs/ghosts.md. WISP_GHOST_WINDOWS=on makes
# the ghosts serve the windows with Open MPI too (its default is not to).
set(on WISP_GHOST_WINDOWS=on)

# wisp_add_rma_test(name USERS n [ARGS a...]): `n` application processes,
# natively and with 1 and 2 ghosts; and 2 application processes on virtual
# nodes of one application process and one ghost, so every target is on
# another node (3-5 processes in all).
function(wisp_add_rma_test name)
  cmake_parse_arguments(T "" "USERS;SUFFIX" "ARGS" ${ARGN})
  set(n ${T_USERS})
  math(EXPR n1 "${n} + 1")
  math(EXPR n2 "${n} + 2")
  wisp_add_mpi_test(${name} NP ${n} SUFFIX "${T_SUFFIX}.ghosts0" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP ${n1} ENV WISP_GHOSTS=1 ${on} SUFFIX "${T_SUFFIX}.ghosts1" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP ${n2} ENV WISP_GHOSTS=2 ${on} SUFFIX "${T_SUFFIX}.ghosts2" ARGS ${T_ARGS})
  wisp_add_mpi_test(${name} NP 4 ENV WISP_GHOSTS=1 WISP_VNODE_SIZE=2 ${on}
                    SUFFIX "${T_SUFFIX}.vnode2.ghosts1" ARGS ${T_ARGS})
endfunction()

wisp_add_rma_test(rma_ops USERS 3)
wisp_add_rma_test(rma_ops USERS 2 SUFFIX .shared ARGS shared)
wisp_add_rma_test(rma_ops USERS 2 SUFFIX .nolocks ARGS nolocks)
wisp_add_rma_test(rma_atomicity USERS 3)
wisp_add_rma_test(rma_counter USERS 3)
wisp_add_rma_test(rma_attrs USERS 3)
wisp_add_rma_test(rma_epochs USERS 3)
