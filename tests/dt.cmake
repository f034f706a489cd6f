# The datatype engine (src/dt) against the MPI's MPI_Pack and MPI_Unpack:
# 10000 random nested types per seed, and the engine's cases one at a time
# (tests/mpi/dt_random.c). The engine's functions are hidden in libwisp, so
# the program compiles its own copy of src/dt.
foreach(seed 1 2)
  wisp_add_mpi_test(dt_random NP 1 SUFFIX .seed${seed} ARGS ${seed})
endforeach()
file(GLOB wisp_dt_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/dt/*.c")
# and of the idle-thread team it uses, without its component (never started);
# tests/ghost_binding.cmake compiles the same list
list(APPEND wisp_dt_sources "${PROJECT_SOURCE_DIR}/src/team/team.c" "${PROJECT_SOURCE_DIR}/src/team/ompt.c")
target_sources(t_dt_random PRIVATE ${wisp_dt_sources})
target_include_directories(t_dt_random PRIVATE "${PROJECT_SOURCE_DIR}/src")

# Idle threads inside a parallel region (src/team/ompt.c): the program is
# compiled with -fopenmp but linked against LLVM's libomp, whose OMPT lets
# wisp park threads waiting at a barrier; 2 threads, one process. `help`:
# parked threads must do part of the packs (and WISP_VERBOSE=1 says OMPT is
# on); `alone`, with WISP_DT_THREADS=1: they do none. Open MPI binds each
# process to one core, where wisp's team is never formed: unbound.
find_library(WISP_LIBOMP NAMES omp libomp.so.5 PATHS /usr/lib/x86_64-linux-gnu)
if(WISP_LIBOMP AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
  wisp_test_program(t_dt_ompt "${CMAKE_CURRENT_SOURCE_DIR}/mpi/dt_ompt.c")
  target_compile_options(t_dt_ompt PRIVATE -fopenmp)
  target_link_libraries(t_dt_ompt PRIVATE wisp "${WISP_LIBOMP}")
  target_include_directories(t_dt_ompt PRIVATE "${PROJECT_SOURCE_DIR}/include")
  set(unbound)
  if(WISP_MPI STREQUAL "openmpi")
    set(unbound --mpiexec-arg --bind-to --mpiexec-arg none)
  endif()
  # (help: a team for the 128 KiB face, below two threads' default minimum of work)
  add_test(NAME mpi.dt_ompt.np1.help
           COMMAND bash -c [[out=$("$@" 2>&1); rc=$?; printf '%s\n' "$out"
                             [ $rc = 0 ] && grep -q "inside them threads waiting at a barrier (OMPT)" <<<"$out"]]
                   -- ${WISP_WISPRUN} ${unbound} --env OMP_NUM_THREADS=2 --env WISP_VERBOSE=1
                   --env WISP_DT_THREADS_MIN=16k -n 1 $<TARGET_FILE:t_dt_ompt> help)
  add_test(NAME mpi.dt_ompt.np1.alone
           COMMAND ${WISP_WISPRUN} ${unbound} --env OMP_NUM_THREADS=2 --env WISP_DT_THREADS=1
                   -n 1 $<TARGET_FILE:t_dt_ompt> alone)
  # An application's own OMPT tool, preloaded after libwisp (wisprun puts
  # libwisp first): libomp gets that one (it prints its count at exit), and
  # wisp says why it does not help. Not in the sanitizer build, whose
  # runtime would have to come first.
  set(wisp_dt_ompt_tests help alone)
  if(NOT WISP_SANITIZE)
    add_library(ompt_tool MODULE "${CMAKE_CURRENT_SOURCE_DIR}/shims/ompt_tool.c")
    target_include_directories(ompt_tool PRIVATE "${PROJECT_SOURCE_DIR}/src")
    add_test(NAME mpi.dt_ompt.np1.other_tool
             COMMAND bash -c [[tool=$1; shift; out=$(LD_PRELOAD=$tool "$@" 2>&1); rc=$?; printf '%s\n' "$out"
                               [ $rc = 0 ] && grep -q "ompt_tool: [1-9][0-9]* parallel regions" <<<"$out" &&
                               grep -q "outside parallel regions only (another OMPT tool is loaded)" <<<"$out"]]
                     -- $<TARGET_FILE:ompt_tool> ${WISP_WISPRUN} ${unbound} --env OMP_NUM_THREADS=2
                     --env WISP_VERBOSE=1 -n 1 $<TARGET_FILE:t_dt_ompt> alone)
    list(APPEND wisp_dt_ompt_tests other_tool)
  endif()
  foreach(t ${wisp_dt_ompt_tests})
    wisp_test_properties(mpi.dt_ompt.np1.${t} 1 mpi)
    set_tests_properties(mpi.dt_ompt.np1.${t} PROPERTIES TIMEOUT 60)
  endforeach()
else()
  message(STATUS "libomp not found (Debian: libomp-dev): no test of idle threads inside regions")
endif()

# src/team/ompt.h against the runtime's omp-tools.h, where one is installed.
file(GLOB wisp_omp_tools_h /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h)
if(wisp_omp_tools_h)
  list(GET wisp_omp_tools_h 0 wisp_omp_tools_h)
  get_filename_component(wisp_omp_tools_dir "${wisp_omp_tools_h}" DIRECTORY)
  add_executable(unit_ompt_abi_ours unit/ompt_abi.c)
  target_include_directories(unit_ompt_abi_ours PRIVATE "${PROJECT_SOURCE_DIR}/src")
  add_executable(unit_ompt_abi_theirs unit/ompt_abi.c)
  target_compile_definitions(unit_ompt_abi_theirs PRIVATE WISP_OMP_TOOLS_H)
  target_include_directories(unit_ompt_abi_theirs PRIVATE "${wisp_omp_tools_dir}")
  add_test(NAME unit.ompt_abi
           COMMAND bash -c [[diff <("$1") <("$2") && echo "ok: src/team/ompt.h matches $3"]]
                   -- $<TARGET_FILE:unit_ompt_abi_ours> $<TARGET_FILE:unit_ompt_abi_theirs>
                   "${wisp_omp_tools_h}")
  set_tests_properties(unit.ompt_abi PROPERTIES LABELS "${WISP_MPI};unit" TIMEOUT 30)
endif()
