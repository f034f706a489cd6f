# The datatype engine (src/dt) against the MPI's MPI_Pack and MPI_Unpack:
# 10000 random nested types per seed, and the engine's cases one at a time
# (tests/mpi/dt_random.c). The engine's functions are hidden in libwisp, so
# the program compiles its own copy of src/dt.
foreach(seed 1 2)
  wisp_add_mpi_test(dt_random NP 1 SUFFIX .seed${seed} ARGS ${seed})
endforeach()
file(GLOB wisp_dt_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/dt/*.c")
target_sources(t_dt_random PRIVATE ${wisp_dt_sources})
target_include_directories(t_dt_random PRIVATE "${PROJECT_SOURCE_DIR}/src")
