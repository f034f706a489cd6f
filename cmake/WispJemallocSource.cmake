# Where the shared heap's jemalloc source comes from, checked at configure
# time so that a bad choice stops `cmake` with one message naming the option
# instead of failing halfway through the build. Three ways:
#   - WISP_JEMALLOC_SOURCE unset (the default, Debian): Debian's source
#     package, fetched with `apt-get source` at build time
#     (tools/debsrc_fetch.sh); needs apt and, once per build tree, the network;
#   - WISP_JEMALLOC_SOURCE=<archive>.tar.bz2|.tar.xz|.tar.gz: jemalloc's
#     release tarball (upstream's jemalloc-5.3.0.tar.bz2 or Debian's
#     jemalloc_5.3.0.orig.tar.bz2), unpacked at build time by ExternalProject;
#   - WISP_JEMALLOC_SOURCE=<directory>: an unpacked source tree, built as is
#     (out of tree: it is never written to).
# A source must carry jemalloc's generated configure script (the release
# tarballs do; GitHub's archive of a tag does not) and src/jemalloc.c; its
# VERSION file, where there is one, must say WISP_JEMALLOC_VERSION, or a
# warning says which version it is.
#
# wisp_jemalloc_source(<source-dir-var> <download-args-var>) sets the tree
# that ExternalProject configures and the download arguments it takes.

set(WISP_JEMALLOC_SOURCE "" CACHE FILEPATH
    "jemalloc ${WISP_JEMALLOC_VERSION}'s source, to build instead of fetching Debian's with apt-get source: its release tarball (.tar.bz2, .tar.xz, .tar.gz) or an unpacked tree")
find_program(WISP_APT_GET apt-get DOC "apt-get, which fetches Debian's jemalloc source when WISP_JEMALLOC_SOURCE is unset")

# What to give instead, in every message. Each message's first line starts
# with a space, so that CMake prints it whole instead of wrapping it: that
# line alone names the option and what it takes.
set(WISP_JEMALLOC_HINT
    "give -DWISP_JEMALLOC_SOURCE=<jemalloc ${WISP_JEMALLOC_VERSION}'s release tarball (upstream's jemalloc-${WISP_JEMALLOC_VERSION}.tar.bz2 or Debian's jemalloc_${WISP_JEMALLOC_VERSION}.orig.tar.bz2) or its unpacked directory>")

function(wisp_jemalloc_bad why)
  message(FATAL_ERROR " WISP_JEMALLOC_SOURCE='${WISP_JEMALLOC_SOURCE}' ${why}: ${WISP_JEMALLOC_HINT}\n${ARGN}")
endfunction()

# The version a VERSION file names ("5.3.0-0-g54eaed1d..."), or a warning.
function(wisp_jemalloc_check_version version_file)
  if(NOT EXISTS "${version_file}")
    message(WARNING "WISP_JEMALLOC_SOURCE='${WISP_JEMALLOC_SOURCE}' has no VERSION file: its jemalloc "
                    "version is unknown; wisp is built and tested with ${WISP_JEMALLOC_VERSION}")
    return()
  endif()
  file(STRINGS "${version_file}" line LIMIT_COUNT 1)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" version "${line}")
  if(NOT version STREQUAL WISP_JEMALLOC_VERSION)
    message(WARNING "WISP_JEMALLOC_SOURCE='${WISP_JEMALLOC_SOURCE}' is jemalloc '${line}', not "
                    "${WISP_JEMALLOC_VERSION}, the version wisp is built and tested with; building it anyway")
  else()
    message(STATUS "wisp: jemalloc ${version} from ${WISP_JEMALLOC_SOURCE}")
  endif()
endfunction()

# An archive: listed (not unpacked) to find its one top folder with
# configure and src/jemalloc.c; its VERSION alone is unpacked to be read.
function(wisp_jemalloc_check_archive scratch)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E tar tf "${WISP_JEMALLOC_SOURCE}"
                  OUTPUT_VARIABLE listing ERROR_VARIABLE error RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE "CMake Error: " "" error "${error}")
    wisp_jemalloc_bad("is not an archive that can be read" "${error}")
  endif()
  string(REGEX MATCH "(^|\n)((\\./)?[^/\n]+)/configure(\n|$)" found "${listing}")
  set(top "${CMAKE_MATCH_2}")
  string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" top_re "${top}")
  if(NOT found OR NOT listing MATCHES "(^|\n)${top_re}/src/jemalloc\\.c(\n|$)")
    wisp_jemalloc_bad("is not jemalloc's release source (no <folder>/configure and <folder>/src/jemalloc.c in it)")
  endif()
  file(REMOVE_RECURSE "${scratch}")
  file(MAKE_DIRECTORY "${scratch}")
  if(listing MATCHES "(^|\n)${top_re}/VERSION(\n|$)")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E tar xf "${WISP_JEMALLOC_SOURCE}" "${top}/VERSION"
                    WORKING_DIRECTORY "${scratch}" OUTPUT_QUIET ERROR_QUIET)
  endif()
  wisp_jemalloc_check_version("${scratch}/${top}/VERSION")
endfunction()

function(wisp_jemalloc_source source_var download_var)
  set(prefix "${PROJECT_BINARY_DIR}/jemalloc")
  set(source "${WISP_JEMALLOC_SOURCE}")
  if(source STREQUAL "")
    if(NOT WISP_APT_GET OR NOT EXISTS "${WISP_APT_GET}")
      message(FATAL_ERROR " WISP_JEMALLOC_SOURCE is unset and there is no apt-get to fetch Debian's jemalloc "
                          "source (not Debian?): ${WISP_JEMALLOC_HINT}")
    endif()
    set(${source_var} "${prefix}/src/jemalloc-${WISP_JEMALLOC_VERSION}" PARENT_SCOPE)
    set(${download_var} DOWNLOAD_COMMAND bash "${PROJECT_SOURCE_DIR}/tools/debsrc_fetch.sh"
        "wisp: cannot fetch jemalloc ${WISP_JEMALLOC_VERSION}'s source" jemalloc ${WISP_JEMALLOC_VERSION}
        "${prefix}/src" configure "without the network, ${WISP_JEMALLOC_HINT}" PARENT_SCOPE)
    return()
  endif()
  if(NOT IS_ABSOLUTE "${source}")
    wisp_jemalloc_bad("is not an absolute path")
  elseif(NOT EXISTS "${source}")
    wisp_jemalloc_bad("does not exist")
  elseif(IS_DIRECTORY "${source}")
    if(NOT EXISTS "${source}/configure" OR NOT EXISTS "${source}/src/jemalloc.c")
      wisp_jemalloc_bad("is not jemalloc's release source (no configure and src/jemalloc.c in it)")
    endif()
    wisp_jemalloc_check_version("${source}/VERSION")
    set(${source_var} "${source}" PARENT_SCOPE)
    set(${download_var} DOWNLOAD_COMMAND "" PARENT_SCOPE)
  elseif(source MATCHES "\\.(tar|tar\\.gz|tgz|tar\\.xz|txz|tar\\.bz2|tbz2?)$")
    wisp_jemalloc_check_archive("${prefix}/check")
    # Unpacked by ExternalProject at build time, again when the path or
    # (seen at the next configure) the content changes: its hash is part of
    # the step, and checked. The archive's times are kept so that make never
    # thinks configure stale.
    file(SHA256 "${source}" hash)
    set(${source_var} "${prefix}/src/jemalloc-archive" PARENT_SCOPE)
    set(${download_var} URL "${source}" URL_HASH SHA256=${hash} DOWNLOAD_EXTRACT_TIMESTAMP TRUE PARENT_SCOPE)
  else()
    wisp_jemalloc_bad("is neither a directory nor a .tar.bz2, .tar.xz or .tar.gz archive")
  endif()
endfunction()
