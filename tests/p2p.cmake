# The point-to-point engine's tests (tests/mpi/p2p_*.c): plain MPI programs
# that assert MPI's semantics, so they pass natively too. They run with every
# peer on the node, with virtual nodes of 2 (half the peers remote), and with
# the shared heap off.
set(p2p_stress_args) # the default: 100000 messages in all
if(WISP_SANITIZE)
  set(p2p_stress_args 8000) # messages per rank: checking every byte is slow under the sanitizers
endif()
wisp_add_mpi_test(p2p_stress NP 4 ARGS ${p2p_stress_args})
wisp_add_mpi_test(p2p_stress NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2 ARGS ${p2p_stress_args})
wisp_add_mpi_test(p2p_stress NP 2 ENV WISP_SHM=off SUFFIX .off ARGS ${p2p_stress_args})
wisp_add_mpi_test(p2p_semantics NP 2)
wisp_add_mpi_test(p2p_semantics NP 3)
wisp_add_mpi_test(p2p_semantics NP 4 ENV WISP_VNODE_SIZE=2 SUFFIX .vnode2)
# Two nodes of one process: every wildcard waits for a remote sender.
wisp_add_mpi_test(p2p_semantics NP 2 ENV WISP_VNODE_SIZE=1 SUFFIX .vnode1)
wisp_add_mpi_test(p2p_threads NP 2)
