# Run by `cmake --install` of either build, after that build's own files
# (cmake/WispInstall.cmake sets WISP_VERSION, the WISP_*DIR install
# directories and WISP_TEMPLATES): the shared files that
# depend on the prefix or on what it holds, the same from either build.
#
#  - lib/pkgconfig/wisp.pc: `pkg-config wisp` is the prefix's one MPI's
#    wisp-<mpi>.pc when it holds one; with both, it asks for a choice:
#    `pkg-config --define-variable=mpi=openmpi wisp`, or wisp-openmpi itself
#    (without one, pkg-config says that wisp-choose-mpich-or-openmpi is
#    not found).
#  - the MPIs the module files' help and description name: those installed
#    here, with their versions (@WISP_MODULE_MPIS@, @WISP_MODULE_PCS@,
#    @WISP_MODULE_FIND_PACKAGE@).
#  - the environment modules wisp/<version>, for Lmod (Lua) and for
#    Environment Modules (Tcl; Lmod reads it too): PATH, MANPATH,
#    PKG_CONFIG_PATH, CMAKE_PREFIX_PATH and LD_LIBRARY_PATH (for programs
#    linked with -lwisp-<mpi>). They name the prefix, the one given at
#    install time (not DESTDIR's staging copy).

foreach(dir BINDIR LIBDIR MANDIR DATADIR)
  if(IS_ABSOLUTE "${WISP_${dir}}")
    set(abs_${dir} "${WISP_${dir}}")
  else()
    set(abs_${dir} "${CMAKE_INSTALL_PREFIX}/${WISP_${dir}}")
  endif()
endforeach()

# wisp_install_text(DEST CONTENT): DEST (absolute, under the prefix) holds
# CONTENT, written directly (file(INSTALL) would leave it "up to date" when
# the other build wrote its version in the same second) and listed in the
# install manifest as file(INSTALL) lists what it installs.
function(wisp_install_text dest content)
  set(real "$ENV{DESTDIR}${dest}")
  get_filename_component(real_dir "${real}" DIRECTORY)
  file(MAKE_DIRECTORY "${real_dir}")
  message(STATUS "Installing: ${real}")
  file(WRITE "${real}" "${content}")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${real}")
  set(CMAKE_INSTALL_MANIFEST_FILES "${CMAKE_INSTALL_MANIFEST_FILES}" PARENT_SCOPE)
endfunction()

set(pc_dir "$ENV{DESTDIR}${abs_LIBDIR}/pkgconfig")
# The MPIs installed here, each by its wisp-<mpi>.pc, whose description
# says what it was built against ("built against mpich 5.0.2"): for the
# module files' text, e.g. "MPICH 4.0.2 or Open MPI 4.1.4", or "MPICH 5.0.2"
# in a prefix of one build for the MPI of a site's module.
set(installed)
set(mpi_names)
foreach(mpi mpich openmpi abi)
  if(EXISTS "${pc_dir}/wisp-${mpi}.pc")
    list(APPEND installed ${mpi})
    file(STRINGS "${pc_dir}/wisp-${mpi}.pc" about REGEX "^Description:")
    set(mpi_version "")
    if(about MATCHES "built against ${mpi} ([^ )]+)")
      set(mpi_version " ${CMAKE_MATCH_1}")
    endif()
    if(mpi STREQUAL "mpich")
      list(APPEND mpi_names "MPICH${mpi_version}")
    elseif(mpi STREQUAL "openmpi")
      list(APPEND mpi_names "Open MPI${mpi_version}")
    else()
      list(APPEND mpi_names "the MPI-5 standard ABI${mpi_version}")
    endif()
  endif()
endforeach()
list(JOIN installed "-or-" installed_choice)
list(JOIN mpi_names " or " WISP_MODULE_MPIS)
list(TRANSFORM installed PREPEND "wisp-" OUTPUT_VARIABLE pc_names)
list(JOIN pc_names " or " WISP_MODULE_PCS)
list(LENGTH installed count)
if(count EQUAL 1)
  set(wisp_mpi "${installed}")
  set(pc_about "the library for ${installed}, the only MPI installed here (wisp-<mpi> names one)")
else()
  set(wisp_mpi "choose-${installed_choice}")
  list(TRANSFORM installed PREPEND "=" OUTPUT_VARIABLE defines)
  list(JOIN defines " or " defines)
  set(pc_about "give the MPI: --define-variable=mpi${defines}, or ask for ${WISP_MODULE_PCS}")
endif()
# find_package(wisp) (cmake/wispConfig.cmake.in) knows mpich and openmpi,
# not the standard ABI's library.
set(cmake_mpis ${installed})
list(REMOVE_ITEM cmake_mpis abi)
list(JOIN cmake_mpis " or " cmake_mpis_or)
if(cmake_mpis)
  set(WISP_MODULE_FIND_PACKAGE "in CMake: the library for the MPI the project
                          compiles with (COMPONENTS ${cmake_mpis_or} names it)")
else()
  set(WISP_MODULE_FIND_PACKAGE "in CMake: not for libwisp-abi (pkg-config wisp-abi)")
endif()
wisp_install_text("${abs_LIBDIR}/pkgconfig/wisp.pc"
"# wisp.pc: written by `cmake --install` from what this prefix holds (cmake/WispInstallShared.cmake)
mpi=${wisp_mpi}

Name: wisp
Description: MPI runtime layer for many-core nodes: ${pc_about}
Version: ${WISP_VERSION}
Requires: wisp-\${mpi}
")

set(WISP_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(WISP_BIN "${abs_BINDIR}")
set(WISP_LIB "${abs_LIBDIR}")
set(WISP_MAN "${abs_MANDIR}")
foreach(kind lmod tcl)
  if(kind STREQUAL "lmod")
    set(name "${WISP_VERSION}.lua")
    set(template wisp-module.lua.in)
  else()
    set(name "${WISP_VERSION}")
    set(template wisp-module.tcl.in)
  endif()
  file(READ "${WISP_TEMPLATES}/${template}" text)
  string(CONFIGURE "${text}" text @ONLY)
  wisp_install_text("${abs_DATADIR}/modulefiles/${kind}/wisp/${name}" "${text}")
endforeach()
