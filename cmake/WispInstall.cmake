# install: the library (shared and static), wisp.h, wisprun, wisp-info,
# wisp.pc for pkg-config, a CMake package for find_package(wisp) and the
# manual pages wisprun(1) and wisp(7) (man/CMakeLists.txt).
include(CMakePackageConfigHelpers)

install(TARGETS wisp wisp_static EXPORT wispTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS wisp-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES "${WISP_MAN_DIR}/wisprun.1" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES "${WISP_MAN_DIR}/wisp.7" DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
install(EXPORT wispTargets NAMESPACE wisp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wisp)

configure_package_config_file(cmake/wispConfig.cmake.in "${PROJECT_BINARY_DIR}/wispConfig.cmake"
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wisp)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/wispConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/wispConfig.cmake" "${PROJECT_BINARY_DIR}/wispConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wisp)

if(WISP_MPI STREQUAL "mpich")
  set(WISP_MPI_PC mpich)
else()
  set(WISP_MPI_PC ompi-c)
endif()
# Relative to the .pc file, so `cmake --install --prefix` may move it.
file(RELATIVE_PATH pc_to_prefix "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
configure_file(cmake/wisp.pc.in "${PROJECT_BINARY_DIR}/wisp.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/wisp.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
