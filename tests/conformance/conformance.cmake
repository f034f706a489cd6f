# MPICH's own test suite (test/mpi of MPICH 4.0.2, fetched at test time with
# apt-get source) run natively and under wisp: the CI part, tests of at most
# 2 processes of pt2pt, coll, comm, rma, datatype and group, under wisp and
# with virtual nodes of 1 (docs/testing.md). `make conformance` runs it all.
# In the MPICH build only (Open MPI: `make conformance`), not in the sanitizer
# build: each would add as much again to `make check`.
set(WISP_CONFORMANCE_DIR "${PROJECT_SOURCE_DIR}/build/conformance" CACHE PATH
    "where MPICH's test suite is fetched, built and run (shared by the builds)")
if(WISP_MPI STREQUAL "mpich" AND NOT WISP_SANITIZE)
  add_test(NAME conformance.mpich_testsuite.ci
           COMMAND "${WISP_TOOLS_PYTHON}" "${PROJECT_SOURCE_DIR}/tools/conformance.py" --mpi ${WISP_MPI}
                   --wisprun "${WISP_WISPRUN}" --work "${WISP_CONFORMANCE_DIR}" --subset ci)
  # It fetches, configures and builds the suite on first use, then runs
  # about 220 tests three times; it reports its own time limits per test.
  set_tests_properties(conformance.mpich_testsuite.ci PROPERTIES TIMEOUT 2400 PROCESSORS 2 RUN_SERIAL ON
                       LABELS "${WISP_MPI};conformance")
endif()
