# jemalloc for the shared heap (src/shm/heap.c), built from Debian's source
# package and linked into libwisp: static, position-independent, every
# symbol prefixed (wispje_) and hidden, no malloc/free or operator new of
# its own, and no initial-exec TLS, so the heap serves however libwisp got
# into the process (LD_PRELOAD, -lwisp, wisprun) with nothing set in the
# environment. The source is fetched at build time (tools/debsrc_fetch.sh:
# apt-get source jemalloc, with a deb-src entry added if apt has none) into
# this build tree, never committed; it is fetched and built once per build
# tree (ExternalProject's stamps). WISP_JEMALLOC_SOURCE names an unpacked
# source tree to build instead, for machines without the network.
include(ExternalProject)

set(WISP_JEMALLOC_VERSION 5.3.0)
set(WISP_JEMALLOC_SOURCE "" CACHE PATH
    "an unpacked jemalloc ${WISP_JEMALLOC_VERSION} source tree to build instead of fetching Debian's")
set(je_prefix "${PROJECT_BINARY_DIR}/jemalloc")
set(je_build "${je_prefix}/build")
if(WISP_JEMALLOC_SOURCE)
  if(NOT EXISTS "${WISP_JEMALLOC_SOURCE}/configure")
    message(FATAL_ERROR "WISP_JEMALLOC_SOURCE='${WISP_JEMALLOC_SOURCE}' has no configure script")
  endif()
  set(je_source "${WISP_JEMALLOC_SOURCE}")
  set(je_download DOWNLOAD_COMMAND "")
else()
  set(je_source "${je_prefix}/src/jemalloc-${WISP_JEMALLOC_VERSION}")
  set(je_download DOWNLOAD_COMMAND bash "${PROJECT_SOURCE_DIR}/tools/debsrc_fetch.sh"
      "wisp: cannot build the shared heap's jemalloc" jemalloc ${WISP_JEMALLOC_VERSION}
      "${je_prefix}/src" configure)
endif()
find_program(WISP_GNU_MAKE NAMES make gmake REQUIRED)
cmake_host_system_information(RESULT je_jobs QUERY NUMBER_OF_LOGICAL_CORES)

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
  CONFIGURE_COMMAND "${je_source}/configure" --quiet "CC=${CMAKE_C_COMPILER}"
                    --with-jemalloc-prefix=wispje_ --with-private-namespace=wispje_int_
                    --without-export --disable-initial-exec-tls --disable-shared --enable-static
                    --disable-cxx --disable-doc --disable-stats --disable-libdl --with-lg-hugepage=21
                    --with-malloc-conf=tcache_max:131072,dss:disabled
  BUILD_COMMAND "${WISP_GNU_MAKE}" -j${je_jobs} build_lib_static
        COMMAND "${CMAKE_LINKER}" -r --whole-archive lib/libjemalloc_pic.a -o "${WISP_JEMALLOC_OBJECT}"
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${WISP_JEMALLOC_OBJECT}"
  LOG_CONFIGURE ON
  LOG_BUILD ON
  LOG_OUTPUT_ON_FAILURE ON)
set(WISP_JEMALLOC_INCLUDE_DIR "${je_build}/include")
set_source_files_properties("${WISP_JEMALLOC_OBJECT}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
