# Benchmarks of wisp's user-level threads (issue 12, seed 003;
# docs/benchmarks.md, "User-level threads"). Included by bench/CMakeLists.txt.

find_package(Threads REQUIRED)

# The cost of a yield and of a fork + join, beside pthreads': no MPI, linked
# with libwisp, one run that takes its own medians.
add_executable(bench_ult_yield ult_yield.c)
target_link_libraries(bench_ult_yield PRIVATE wisp Threads::Threads)
set_target_properties(bench_ult_yield PROPERTIES OUTPUT_NAME ult_yield)
add_test(NAME bench.ult_yield COMMAND bench_ult_yield 11)
set_tests_properties(bench.ult_yield PROPERTIES LABELS bench RUN_SERIAL TRUE TIMEOUT 300)

# The MPI programs are linked with the MPI only and find wisp's ULT API at run
# time (bench/ult_bench.h), so that run.py runs them natively too.
foreach(prog ult_msgrate ult_overhead ult_gcu)
  add_executable(bench_${prog} ${prog}.c)
  target_link_libraries(bench_${prog} PRIVATE MPI::MPI_C Threads::Threads ${CMAKE_DL_LIBS})
  target_include_directories(bench_${prog} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  set_target_properties(bench_${prog} PROPERTIES OUTPUT_NAME ${prog})
endforeach()

# MPI_Send to MPI_PROC_NULL from 1-16 pthreads and from 1-16 ULTs (Fig. 3).
wisp_bench(ult_msgrate_threads NP 1 REPS 5 COMMAND $<TARGET_FILE:bench_ult_msgrate> threads)
wisp_bench(ult_msgrate_ults NP 1 REPS 5 COMMAND $<TARGET_FILE:bench_ult_msgrate> ults)
# Blocking, nonblocking and ULT send and collectives (Figs. 4, 5).
wisp_bench(ult_overhead NP 2 REPS 3 COMMAND $<TARGET_FILE:bench_ult_overhead>)
# Get-compute-accumulate with 1-16 ULTs, the target on another virtual node (Fig. 6).
wisp_bench(ult_gcu NP 2 REPS 3 OPTIONS --env WISP_VNODE_SIZE=1 COMMAND $<TARGET_FILE:bench_ult_gcu>)
# What of ult_gcu's operations is the origin's own work, which no ULT hides;
# its values are checked in the default run too.
add_executable(bench_rma_origin_work rma_origin_work.c)
target_link_libraries(bench_rma_origin_work PRIVATE MPI::MPI_C)
set_target_properties(bench_rma_origin_work PROPERTIES OUTPUT_NAME rma_origin_work)
set(vnodes --env WISP_VNODE_SIZE=1)
wisp_bench(rma_origin_work NP 2 REPS 3 OPTIONS ${vnodes} COMMAND $<TARGET_FILE:bench_rma_origin_work>)
add_test(NAME mpi.bench_rma_origin_work.vnode1
         COMMAND ${WISP_WISPRUN} ${vnodes} -n 2 $<TARGET_FILE:bench_rma_origin_work>)
wisp_test_properties(mpi.bench_rma_origin_work.vnode1 2 mpi)
# CG with the allreduce of r.r in a ULT behind A r (seed 003, Listing 4), and
# the plain CG beside it: compare their iter_ms (docs/benchmarks.md).
foreach(variant plain ult)
  wisp_bench(ult_cg_${variant} NP 2 REPS 3 COMMAND $<TARGET_FILE:app_cg> n=32 variant=${variant})
endforeach()
