# Fortran programs under wisp (docs/fortran.md), built with the MPI's own
# Fortran compiler (mpif90.<mpi>, enabled in the top-level CMakeLists.txt).
# Each program checks its own results; each runs under wisprun with the
# engine (the defaults), on two virtual nodes (the last process alone on
# the second: wildcards of served communicators wait for a remote sender;
# with 2 processes nothing is served, every message crosses the MPI) and
# with one ghost process (one more process launched; the program sees the
# count it asked for).

# wisp_add_fortran_test(name NP n SOURCES file...)
function(wisp_add_fortran_test name)
  cmake_parse_arguments(T "" "NP" "SOURCES" ${ARGN})
  set(target tf_${name})
  add_executable(${target} ${T_SOURCES})
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE Fortran
                        Fortran_MODULE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/${name}")
  target_link_libraries(${target} PRIVATE MPI::MPI_C)
  math(EXPR np_ghost "${T_NP} + 1")
  math(EXPR vnode_size "${T_NP} - 1")
  foreach(setting engine vnode${vnode_size} ghosts1)
    set(np ${T_NP})
    set(envs)
    if(setting STREQUAL "vnode${vnode_size}")
      set(envs --env WISP_VNODE_SIZE=${vnode_size})
    elseif(setting STREQUAL "ghosts1")
      set(envs --env WISP_GHOSTS=1)
      set(np ${np_ghost})
    endif()
    set(test "fortran.${name}.np${T_NP}.${setting}")
    add_test(NAME ${test} COMMAND "${WISP_WISPRUN}" ${envs} -n ${np} $<TARGET_FILE:${target}>)
    wisp_test_properties(${test} ${np} fortran)
  endforeach()
endfunction()

set(dir "${CMAKE_CURRENT_SOURCE_DIR}/fortran")
wisp_add_fortran_test(pingpong NP 2 SOURCES "${dir}/pingpong.f90")
wisp_add_fortran_test(f08 NP 2 SOURCES "${dir}/f08.f90")
wisp_add_fortran_test(wildcard NP 3 SOURCES "${dir}/wildcard.f90")
wisp_add_fortran_test(collective NP 3 SOURCES "${dir}/collective.f90")
wisp_add_fortran_test(rma NP 2 SOURCES "${dir}/rma.f90")
wisp_add_fortran_test(c_main NP 2 SOURCES "${dir}/c_main.c" "${dir}/kernel.f90" "${dir}/kernel_f08.f90")
# Argument forms checked as the MPI's own bindings treat them (blank-padded
# strings, status fields the call leaves alone, a probe that finds nothing).
wisp_add_fortran_test(arguments NP 2 SOURCES "${dir}/arguments.f90")
wisp_add_fortran_test(arguments_f08 NP 2 SOURCES "${dir}/arguments_f08.f90")
# Attributes, which the MPI's Fortran library keeps itself (src/fortran/attr.c).
wisp_add_fortran_test(attributes NP 3 SOURCES "${dir}/attributes.f90" "${dir}/attributes_c.c")
wisp_add_fortran_test(attributes_f08 NP 3 SOURCES "${dir}/attributes_f08.f90" "${dir}/attributes_c.c")

# WISP_STATS=1 counts the Fortran calls as the C functions they are.
wisp_add_script_test(fortran_stats NP 2 "${dir}/stats.sh" "${WISP_WISPRUN}" $<TARGET_FILE:tf_pingpong>
                     "MPI_Send 6x")
wisp_add_script_test(fortran_stats_f08 NP 2 "${dir}/stats.sh" "${WISP_WISPRUN}" $<TARGET_FILE:tf_f08>
                     "MPI_Waitall 2x")
# The MPI's own mpiexec with LD_PRELOAD, nothing else (the README's recipe).
add_test(NAME preload.fortran_pingpong.np2
         COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/mpiexec_preload.sh" ${WISP_MPI} 2
                 "${WISP_TEST_PRELOAD}" WISP_STATS=1 -- $<TARGET_FILE:tf_pingpong>)
# (wisp served it: the calls were counted; a failed check prints FAILED)
set_tests_properties(preload.fortran_pingpong.np2 PROPERTIES PASS_REGULAR_EXPRESSION "MPI_Send 6x"
                     FAIL_REGULAR_EXPRESSION "FAILED")
wisp_test_properties(preload.fortran_pingpong.np2 2 fortran preload)
# A function left out without a communicator (a callback): forwarded, and
# refused with ghosts.
add_executable(tf_unserved "${dir}/unserved.f90")
target_link_libraries(tf_unserved PRIVATE MPI::MPI_C)
set_target_properties(tf_unserved PROPERTIES Fortran_MODULE_DIRECTORY
                      "${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/unserved")
if(WISP_MPI STREQUAL "openmpi")
  set(expect refused)
else()
  set(expect served) # MPICH's mpif.h calls the C MPI_Comm_create_errhandler: wisp serves it
endif()
wisp_add_script_test(fortran_unserved NP 3 "${dir}/unserved.sh" "${WISP_WISPRUN}" $<TARGET_FILE:tf_unserved>
                     ${expect})
# Not a test: the 1 MiB one-way time of a Fortran ping-pong (docs/fortran.md).
add_executable(tf_latency "${dir}/latency.f90")
target_link_libraries(tf_latency PRIVATE MPI::MPI_C)
set_target_properties(tf_latency PROPERTIES Fortran_MODULE_DIRECTORY
                      "${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/latency")
# The conversion check (docs/fortran.md): the converted functions called with
# the argument forms the standard allows, in `use mpi` and `use mpi_f08`, by
# programs tools/gen_fortran_check.py generates into tests/fortran/gen; the
# transcripts under wisp must equal the native one (fcheck.sh), apart from
# the differences tests/fortran/fcheck_known.txt explains.
foreach(binding mpi f08)
  set(target tf_check_${binding})
  add_executable(${target} "${dir}/gen/check_${binding}.F90")
  target_link_libraries(${target} PRIVATE MPI::MPI_C)
  target_compile_options(${target} PRIVATE -ffree-line-length-none)
  if(WISP_MPI STREQUAL "mpich") # MPI-4.0 functions: MPICH 4.0 has them, Open MPI 4.1 not
    target_compile_definitions(${target} PRIVATE WISP_FCHECK_MPI4 WISP_FCHECK_MPICH)
  endif()
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE Fortran Fortran_MODULE_DIRECTORY
                        "${CMAKE_CURRENT_BINARY_DIR}/fortran_modules/check_${binding}")
  set(name mpi)
  if(binding STREQUAL "f08")
    set(name mpi_f08)
  endif()
  set(test "fortran.check_${binding}")
  add_test(NAME ${test} COMMAND bash "${dir}/fcheck.sh" "${WISP_WISPRUN}" $<TARGET_FILE:${target}>
                                ${WISP_MPI} ${name} "${dir}/fcheck_known.txt")
  wisp_test_properties(${test} 3 fortran)
  set_tests_properties(${test} PROPERTIES TIMEOUT 300)
endforeach()
