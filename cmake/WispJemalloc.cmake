# jemalloc for the shared heap (src/shm/heap.c), built from source and
# linked into libwisp: static, position-independent, every symbol prefixed
# (wispje_) and hidden, no malloc/free or operator new of its own, and no
# initial-exec TLS, so the heap serves however libwisp got into the process
# (LD_PRELOAD, -lwisp, wisprun) with nothing set in the environment. The
# source is Debian's package, fetched at build time into this build tree
# (never committed), or a local tarball or tree given with
# WISP_JEMALLOC_SOURCE, for machines without the network or without apt
# (cmake/WispJemallocSource.cmake); it is unpacked and built once per build
# tree (ExternalProject's stamps).
include(ExternalProject)

set(WISP_JEMALLOC_VERSION 5.3.0)
include(${CMAKE_CURRENT_LIST_DIR}/WispJemallocSource.cmake)
wisp_jemalloc_source(je_source je_download)
set(je_prefix "${PROJECT_BINARY_DIR}/jemalloc")
set(je_build "${je_prefix}/build")
find_program(WISP_GNU_MAKE NAMES make gmake REQUIRED)
cmake_host_system_information(RESULT je_jobs QUERY NUMBER_OF_LOGICAL_CORES)

# Through ccache where the rest is (cmake/WispCcache.cmake).
set(je_cc "${CMAKE_C_COMPILER}")
if(WISP_CCACHE_ENV)
  set(je_cc "${WISP_CCACHE_PROGRAM} ${CMAKE_C_COMPILER}")
endif()

# The whole archive as one relocatable object, a source of both libraries
# (libwisp.a must carry jemalloc too: its users link -lwisp alone).
set(WISP_JEMALLOC_OBJECT "${je_build}/wisp_jemalloc.o")
ExternalProject_Add(jemalloc
  PREFIX "${je_prefix}"
  SOURCE_DIR "${je_source}"
  BINARY_DIR "${je_build}"
  ${je_download}
  UPDATE_COMMAND ""
  PATCH_COMMAND ""
  # Not the sanitizer flags: jemalloc stays uninstrumented, as Debian's was.
  # --with-lg-page/--with-lg-hugepage as Debian's amd64 build; stats, the
  # C++ operators, libdl and documentation are not needed. Options
  # (src/shm/heap.c): thread caches keep blocks up to 128 KiB; no sbrk, the
  # brk heap is glibc's. WISPJE_MALLOC_CONF overrides them at run time.
  CONFIGURE_COMMAND ${WISP_CCACHE_ENV} "${je_source}/configure" --quiet "CC=${je_cc}"
                    --with-jemalloc-prefix=wispje_ --with-private-namespace=wispje_int_
                    --without-export --disable-initial-exec-tls --disable-shared --enable-static
                    --disable-cxx --disable-doc --disable-stats --disable-libdl --with-lg-hugepage=21
                    --with-malloc-conf=tcache_max:131072,dss:disabled
  # Only the position-independent archive: build_lib_static would compile
  # every file a second time for the non-PIC one, which nothing uses.
  BUILD_COMMAND ${WISP_CCACHE_ENV} "${WISP_GNU_MAKE}" -j${je_jobs} lib/libjemalloc_pic.a
        COMMAND "${CMAKE_LINKER}" -r --whole-archive lib/libjemalloc_pic.a -o "${WISP_JEMALLOC_OBJECT}"
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${WISP_JEMALLOC_OBJECT}"
  LOG_CONFIGURE ON
  LOG_BUILD ON
  LOG_OUTPUT_ON_FAILURE ON)
set(WISP_JEMALLOC_INCLUDE_DIR "${je_build}/include")
# The tree it was configured from (tests/jemalloc_archive.sh packs it).
set(WISP_JEMALLOC_SOURCE_DIR "${je_source}")
set_source_files_properties("${WISP_JEMALLOC_OBJECT}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
