# Transparency suite: each program runs natively and under wisp and the
# stdout of both runs must match byte for byte (EXIT_CODE_ONLY: only the
# launcher's exit status is compared).  Programs live in
# tests/transparency/<name>.c; see check.h for the output conventions.
wisp_add_transparency_test(p2p_blocking NP 2)
wisp_add_transparency_test(p2p_blocking NP 4)
wisp_add_transparency_test(p2p_nonblocking NP 3)
wisp_add_transparency_test(p2p_wildcard NP 3)
wisp_add_transparency_test(p2p_probe NP 2)
wisp_add_transparency_test(p2p_persistent NP 2)
wisp_add_transparency_test(collectives NP 1)
wisp_add_transparency_test(collectives NP 5)
wisp_add_transparency_test(datatypes NP 2)
wisp_add_transparency_test(comm_group NP 1)
wisp_add_transparency_test(comm_group NP 4)
wisp_add_transparency_test(attributes NP 2)
wisp_add_transparency_test(errhandlers NP 2)
wisp_add_transparency_test(rma NP 2)
wisp_add_transparency_test(rma NP 3)
wisp_add_transparency_test(init_thread NP 2 ARGS single)
wisp_add_transparency_test(init_thread NP 2 ARGS funneled)
wisp_add_transparency_test(init_thread NP 2 ARGS serialized)
wisp_add_transparency_test(init_thread NP 3 ARGS multiple)
wisp_add_transparency_test(abort NP 2 EXIT_CODE_ONLY)
wisp_add_transparency_test(mpi_init_finalized NP 1)
wisp_add_transparency_test(sigbus_own NP 2)
# MPI-4.1's buffer flushes, over an MPI that has them (MPICH 5): passed to
# the MPI, its own request (src/p2p/routes.def); in the smoke set.
file(STRINGS "${PROJECT_BINARY_DIR}/gen/wisp_have.h" have_buffer_iflush
     REGEX "WISP_HAVE_MPI_(Buffer|Comm)_iflush(_buffer)? ")
list(LENGTH have_buffer_iflush have_buffer_iflush)
if(have_buffer_iflush EQUAL 2)
  wisp_add_transparency_test(buffer_flush NP 2)
  set_property(TEST transparency.buffer_flush.np2 APPEND PROPERTY LABELS smoke)
endif()
# MPI-4.1's MPI_Request_get_status_any/_all/_some (MPICH 5): wisp's requests
# and the MPI's in one array (src/p2p/complete.c); in the smoke set.
file(STRINGS "${PROJECT_BINARY_DIR}/gen/wisp_have.h" have_get_status_any
     REGEX "WISP_HAVE_MPI_Request_get_status_any ")
if(have_get_status_any)
  wisp_add_transparency_test(request_get_status NP 2)
  set_property(TEST transparency.request_get_status.np2 APPEND PROPERTY LABELS smoke)
endif()
