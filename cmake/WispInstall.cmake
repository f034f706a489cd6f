# install: one build's files, named for its MPI, so that the MPICH and the
# Open MPI build installed into one prefix (`make install`, or two `cmake
# --install` runs, in either order) sit side by side:
#
#   flavored, one per build          shared, the same from both builds
#   lib/libwisp-<mpi>.so, .a          bin/wisprun (reads lib/wisp/*.conf)
#   lib/wisp/<mpi>.conf               include/wisp.h
#   bin/wisp-info-<mpi>               share/man/man1/wisprun.1, man7/wisp.7
#   lib/pkgconfig/wisp-<mpi>.pc       lib/pkgconfig/wisp.pc (*)
#   lib/cmake/wisp/<mpi>/             lib/cmake/wisp/wispConfig*.cmake
#                                     share/modulefiles/{lmod,tcl}/wisp/<version>
#
# A shared file is written the same by either build, so the second install
# rewrites it unchanged. (*) wisp.pc is written at install time from what
# the prefix holds: the one MPI's wisp-<mpi>.pc when there is one, else a
# chooser (cmake/WispInstallShared.cmake, which writes the module files too).
include(CMakePackageConfigHelpers)

install(TARGETS wisp wisp_static EXPORT wispTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(PROGRAMS $<TARGET_FILE:wisp-info> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME wisp-info-${WISP_MPI})
install(PROGRAMS "${PROJECT_BINARY_DIR}/tools/wisprun.install" DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME wisprun)
install(FILES "${PROJECT_BINARY_DIR}/tools/${WISP_MPI}.conf.install" DESTINATION ${CMAKE_INSTALL_LIBDIR}/wisp
        RENAME ${WISP_MPI}.conf)
install(FILES "${WISP_MAN_DIR}/wisprun.1" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES "${WISP_MAN_DIR}/wisp.7" DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)

# find_package(wisp): wispConfig.cmake picks the MPI, then includes that
# build's targets from lib/cmake/wisp/<mpi>/ (wisp::wisp_<mpi>,
# wisp::wisp_<mpi>_static; see cmake/wispConfig.cmake.in).
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/wisp)
install(EXPORT wispTargets NAMESPACE wisp:: DESTINATION ${cmake_dir}/${WISP_MPI})
file(WRITE "${PROJECT_BINARY_DIR}/wisp-flavor.cmake"
     "# The ${WISP_MPI} build of wisp: the MPI C compiler it was built with.\n"
     "set(_wisp_flavor_compiler \"${MPI_C_COMPILER}\")\n")
install(FILES "${PROJECT_BINARY_DIR}/wisp-flavor.cmake" DESTINATION ${cmake_dir}/${WISP_MPI} RENAME flavor.cmake)
configure_package_config_file(cmake/wispConfig.cmake.in "${PROJECT_BINARY_DIR}/wispConfig.cmake"
                              INSTALL_DESTINATION ${cmake_dir})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/wispConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/wispConfig.cmake" "${PROJECT_BINARY_DIR}/wispConfigVersion.cmake"
        DESTINATION ${cmake_dir})

# The MPI's own pkg-config module, where pkg-config knows it for this MPI's
# version (Debian's mpich.pc, ompi-c.pc; the PyPI wheels and the standard
# ABI ship none, and another MPICH's would be wrong: programs are built with
# the MPI's wrapper there).
set(WISP_MPI_PC "")
if(WISP_MPI MATCHES "^(mpich|openmpi)$")
  set(candidate mpich)
  if(WISP_MPI STREQUAL "openmpi")
    set(candidate ompi-c)
  endif()
  pkg_check_modules(WISP_MPI_PKG QUIET ${candidate})
  if(WISP_MPI_PKG_FOUND AND WISP_MPI_PKG_VERSION VERSION_EQUAL WISP_MPI_VERSION)
    set(WISP_MPI_PC ${candidate})
  endif()
endif()
set(WISP_MPI_BUILT_AGAINST "${WISP_MPI} ${WISP_MPI_VERSION}")
if(WISP_MPI STREQUAL "abi")
  string(APPEND WISP_MPI_BUILT_AGAINST " over ${WISP_MPI_IMPL} ${WISP_MPI_IMPL_VERSION}")
endif()
# Relative to the .pc file, so `cmake --install --prefix` may move it.
file(RELATIVE_PATH pc_to_prefix "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/wisp.pc.in "${PROJECT_BINARY_DIR}/wisp-${WISP_MPI}.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/wisp-${WISP_MPI}.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The shared files that depend on the prefix (the module files name it) or
# on what it holds (wisp.pc): written at install time, after the above.
install(CODE "
  set(WISP_VERSION \"${PROJECT_VERSION}\")
  set(WISP_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(WISP_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(WISP_MANDIR \"${CMAKE_INSTALL_MANDIR}\")
  set(WISP_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
  set(WISP_TEMPLATES \"${PROJECT_SOURCE_DIR}/cmake\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/WispInstallShared.cmake\")")
