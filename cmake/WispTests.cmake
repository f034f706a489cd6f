# Test registration helpers. Every MPI test runs through the build tree's
# wisprun, has a timeout, reserves its process count (PROCESSORS) and carries
# the MPI's name as a label, so one build directory = one MPI's suite.

set(WISP_TEST_TIMEOUT 120 CACHE STRING "seconds before an MPI test is killed")

# Build one MPI test program from tests/<dir>/<name>.c, once.
function(wisp_test_program target source)
  if(NOT TARGET ${target})
    add_executable(${target} ${source})
    target_link_libraries(${target} PRIVATE MPI::MPI_C Threads::Threads)
    target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
endfunction()

# Every test knows the build's launcher (TEST_MPIEXEC_<family>, e.g.
# TEST_MPIEXEC_mpich: the mpiexec beside the MPI's mpicc,
# cmake/WispFindMPI.cmake), for the scripts that run the MPI's own mpiexec
# (tests/mpiexec_preload.sh; an MPI of the other family is Debian's), and
# the implementation (TEST_MPI_IMPL: mpich or openmpi, the family's, or for
# the standard ABI build the one beneath: its launcher's options, its tools).
function(wisp_test_properties test np)
  set_tests_properties(${test} PROPERTIES TIMEOUT ${WISP_TEST_TIMEOUT} PROCESSORS ${np}
                       LABELS "${WISP_MPI};${ARGN}")
  set(env "TEST_MPIEXEC_${WISP_MPI}=${MPIEXEC_EXECUTABLE}" "TEST_MPI_IMPL=${WISP_MPI_IMPL}")
  if(WISP_SANITIZE)
    # Slow unwinding: the MPI's plugins have no frame pointers, and the
    # suppressions match frames below them. A failed allocation returns NULL,
    # as C says (the tests check that), instead of aborting.
    list(APPEND env
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0"
      "ASAN_OPTIONS=fast_unwind_on_malloc=0:allocator_may_return_null=1")
  endif()
  set_tests_properties(${test} PROPERTIES ENVIRONMENT "${env}")
endfunction()

# wisp_add_transparency_test(name NP n [ARGS a...] [EXIT_CODE_ONLY])
# Runs tests/transparency/<name>.c natively and under wisp (default settings,
# and with virtual nodes and statistics on); outputs and exit codes must match.
function(wisp_add_transparency_test name)
  cmake_parse_arguments(T "EXIT_CODE_ONLY" "NP" "ARGS" ${ARGN})
  wisp_test_program(t_${name} "${CMAKE_CURRENT_SOURCE_DIR}/transparency/${name}.c")
  set(test "transparency.${name}.np${T_NP}")
  if(T_ARGS)
    string(JOIN "." suffix ${T_ARGS})
    string(APPEND test ".${suffix}")
  endif()
  set(mode "--compare-output")
  if(T_EXIT_CODE_ONLY)
    set(mode "--compare-exit-code")
  endif()
  add_test(NAME ${test}
           COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/compare.sh" "${WISP_WISPRUN}" ${T_NP} ${mode}
                   -- $<TARGET_FILE:t_${name}> ${T_ARGS})
  wisp_test_properties(${test} ${T_NP} transparency)
endfunction()

# wisp_add_mpi_test(name NP n [ENV NAME=VALUE...] [ARGS a...])
# Runs tests/mpi/<name>.c under wisprun; the program asserts its own results.
function(wisp_add_mpi_test name)
  cmake_parse_arguments(T "" "NP;SUFFIX" "ENV;ARGS" ${ARGN})
  wisp_test_program(t_${name} "${CMAKE_CURRENT_SOURCE_DIR}/mpi/${name}.c")
  target_link_libraries(t_${name} PRIVATE wisp)
  set(envs)
  foreach(kv IN LISTS T_ENV)
    list(APPEND envs --env ${kv})
  endforeach()
  set(test "mpi.${name}.np${T_NP}${T_SUFFIX}")
  add_test(NAME ${test} COMMAND "${WISP_WISPRUN}" ${envs} -n ${T_NP} $<TARGET_FILE:t_${name}> ${T_ARGS})
  wisp_test_properties(${test} ${T_NP} mpi)
endfunction()

# wisp_add_script_test(name NP n script args...): a bash script under tests/
# that drives wisprun itself and checks what the user would see.
function(wisp_add_script_test name)
  cmake_parse_arguments(T "" "NP" "" ${ARGN})
  add_test(NAME script.${name} COMMAND bash ${T_UNPARSED_ARGUMENTS})
  wisp_test_properties(script.${name} ${T_NP} script)
endfunction()

# wisp_add_preload_test(name NP n [ENV NAME=VALUE...] [ARGS a...] [SUFFIX s])
# Runs tests/mpi/<name>.c as the README says to run without wisprun: the
# MPI's own mpiexec with libwisp in LD_PRELOAD (and, in the sanitizer build,
# the sanitizer's runtime before it), nothing else in the environment. The
# program is not linked with libwisp (tests/preloaded.h finds wisp.h's
# functions at run time).
function(wisp_add_preload_test name)
  cmake_parse_arguments(T "" "NP;SUFFIX" "ENV;ARGS" ${ARGN})
  set(target t_${name}_preloaded)
  if(NOT TARGET ${target})
    add_executable(${target} "${CMAKE_CURRENT_SOURCE_DIR}/mpi/${name}.c")
    target_link_libraries(${target} PRIVATE MPI::MPI_C Threads::Threads ${CMAKE_DL_LIBS})
    target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/include")
    target_compile_options(${target} PRIVATE -include "${CMAKE_CURRENT_SOURCE_DIR}/preloaded.h")
  endif()
  set(test "preload.${name}.np${T_NP}${T_SUFFIX}")
  add_test(NAME ${test}
           COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/mpiexec_preload.sh" ${WISP_MPI} ${T_NP}
                   "${WISP_TEST_PRELOAD}" ${T_ENV} -- $<TARGET_FILE:${target}> ${T_ARGS})
  wisp_test_properties(${test} ${T_NP} mpi preload)
endfunction()
