# MPICH's own test suite (test/mpi of MPICH 4.0.2, fetched at test time with
# apt-get source) run natively and under wisp: the CI part, tests of at most
# 2 processes of pt2pt, coll, comm, rma, datatype and group, under wisp and
# with virtual nodes of 1 (docs/testing.md). `make conformance` runs it all.
# In the MPICH build only (Open MPI: `make conformance`), not in the sanitizer
# build: each would add as much again to `make check`. Over the MPIs from
# PyPI (MPICH 5, Open MPI 5: build/mpich5, build/openmpi5, the suite built
# with the tree's own mpicc) a smaller CI part, `--subset ci` of
# conformance.py for those MPIs, in their smoke set (make check-mpich5,
# check-openmpi5); over the standard ABI (build/abi, the suite built with
# mpicc_abi) a smaller one still (make check-abi).
set(WISP_CONFORMANCE_DIR "${PROJECT_SOURCE_DIR}/build/conformance" CACHE PATH
    "where MPICH's test suite is fetched, built and run (shared by the builds)")
set(conformance_mpi "")
if(NOT WISP_SANITIZE AND WISP_MPI STREQUAL "abi")
  set(conformance_mpi abi)
  set(conformance_labels "abi;conformance;smoke")
elseif(NOT WISP_SANITIZE AND WISP_MPI_VERSION_MAJOR EQUAL 5)
  set(conformance_mpi "${WISP_MPI}5")
  set(conformance_labels "${WISP_MPI};conformance;smoke")
elseif(WISP_MPI STREQUAL "mpich" AND NOT WISP_SANITIZE)
  set(conformance_mpi "${WISP_MPI}")
  set(conformance_labels "${WISP_MPI};conformance")
endif()
if(conformance_mpi)
  add_test(NAME conformance.${conformance_mpi}_testsuite.ci
           COMMAND "${WISP_TOOLS_PYTHON}" "${PROJECT_SOURCE_DIR}/tools/conformance.py" --mpi ${conformance_mpi}
                   --wisprun "${WISP_WISPRUN}" --work "${WISP_CONFORMANCE_DIR}" --subset ci)
  # It fetches, configures and builds the suite on first use, then runs
  # its tests natively and in each setting; it reports its own time limits
  # per test.
  set_tests_properties(conformance.${conformance_mpi}_testsuite.ci PROPERTIES TIMEOUT 2400 PROCESSORS 2
                       RUN_SERIAL ON LABELS "${conformance_labels}")
endif()
