# ccache, where it is installed (make deps installs it): a build in a fresh
# clone elsewhere (CI's) takes the objects an earlier build compiled, where
# compiling the five build trees takes 15-20 minutes on 2 cores. Paths under
# the source tree are hashed relative to it, the working directory is left
# out of the hash (debug information then names the directory that first
# compiled an object), and a compiler is known by its content (PyPI's mpicc
# in a venv made afresh). -DWISP_CCACHE=OFF compiles without it.
# WISP_CCACHE_ENV: the environment with which to run ccache (jemalloc's
# build, cmake/WispJemalloc.cmake); empty without ccache.
option(WISP_CCACHE "compile through ccache where it is installed" ON)
find_program(WISP_CCACHE_PROGRAM ccache)
set(WISP_CCACHE_ENV "")
if(WISP_CCACHE AND WISP_CCACHE_PROGRAM)
  set(ccache_env ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
                 CCACHE_COMPILERCHECK=content)
  # ccache fails every compile where it cannot write its cache (a read-only
  # home): one compile through it first, and without it if that fails.
  set(probe "${PROJECT_BINARY_DIR}/ccache-probe")
  file(WRITE "${probe}.c" "int wisp_ccache_probe(void) { return 0; }\n")
  execute_process(COMMAND ${ccache_env} ${WISP_CCACHE_PROGRAM} ${CMAKE_C_COMPILER} -c "${probe}.c"
                          -o "${probe}.o"
                  RESULT_VARIABLE probe_status OUTPUT_QUIET ERROR_VARIABLE probe_error)
  if(probe_status EQUAL 0)
    set(WISP_CCACHE_ENV ${ccache_env})
    set(CMAKE_C_COMPILER_LAUNCHER ${WISP_CCACHE_ENV} ${WISP_CCACHE_PROGRAM})
  else()
    string(STRIP "${probe_error}" probe_error)
    message(STATUS "ccache cannot compile here (${probe_error}): compiling without it")
  endif()
endif()
