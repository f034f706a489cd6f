# Which MPI this build is for: the MPI is its C compiler wrapper, and what
# the MPI is (its family and version) is read from the mpi.h that wrapper
# compiles with, never from a name.
#
# The wrapper, in this order:
#   - MPI_C_COMPILER, when given (-DMPI_C_COMPILER=/opt/mpich/bin/mpicc);
#   - mpicc.<WISP_MPI> for -DWISP_MPI=mpich|openmpi (Debian's names; the
#     Makefile's build/mpich and build/openmpi);
#   - mpicc in PATH (what `module load` put first).
# The launcher: MPIEXEC_EXECUTABLE when given, else the mpiexec beside the
# wrapper (mpiexec.mpich beside mpicc.mpich, mpiexec beside mpicc).
#
# The family decides the library's name (libwisp-mpich, libwisp-openmpi:
# WISP_MPI, which the rest of the build and wisprun key on). A wrapper that
# compiles with the MPI-5 standard ABI's mpi.h (MPI_ABI_VERSION and no
# implementation's macros: MPICH's mpicc_abi) is family abi and builds
# libwisp-abi, which knows nothing of the MPI beneath it. MPICH 5 is
# family mpich and builds libwisp-mpich in its own build directory (see
# docs/launch.md, "MPIs by their wrapper", for why two builds of one family
# are not installed into one prefix). -DWISP_MPI given with a wrapper of the
# other family stops configure.
#
# Sets WISP_MPI (cache, the family), WISP_MPI_VERSION (the MPI's version,
# e.g. 5.0.2), WISP_MPI_ABI_VERSION (MPI_ABI_VERSION where mpi.h defines it),
# WISP_MPI_IMPL, WISP_MPI_IMPL_VERSION(_MAJOR) (the implementation beneath:
# the family's, or for abi the library's), WISP_LAUNCHER_STYLE (mpich or
# openmpi: the launcher's options), MPI_C_COMPILER and MPIEXEC_EXECUTABLE
# (cache, full paths).

set(WISP_MPI "" CACHE STRING "the MPI's family for Debian's wrapper names (mpich or openmpi); empty: MPI_C_COMPILER or mpicc in PATH")
if(WISP_MPI AND NOT WISP_MPI MATCHES "^(mpich|openmpi)$" AND NOT WISP_MPI STREQUAL "${_WISP_MPI_PROBED}")
  message(FATAL_ERROR "WISP_MPI='${WISP_MPI}': expected mpich or openmpi (or leave it out and give MPI_C_COMPILER)")
endif()

# WISP_MPI that this file wrote from the probe (recorded in
# _WISP_MPI_PROBED) asks for nothing on a later configure; one given asks
# for Debian's wrapper of that family.
set(_wisp_asked "${WISP_MPI}")
if(_wisp_asked STREQUAL "${_WISP_MPI_PROBED}")
  set(_wisp_asked "")
endif()
# A wrapper that this file chose (recorded in _WISP_CHOSEN_CC), or the
# Debian name that earlier builds forced, is chosen again; any other value
# of MPI_C_COMPILER is the user's and stays.
set(_wisp_cc "${MPI_C_COMPILER}")
set(_wisp_chose OFF)
if(NOT _wisp_cc OR _wisp_cc STREQUAL "${_WISP_CHOSEN_CC}" OR _wisp_cc MATCHES "^mpicc\\.(mpich|openmpi)$")
  set(_wisp_chose ON)
  if(_wisp_asked)
    set(_wisp_cc "mpicc.${_wisp_asked}")
  else()
    set(_wisp_cc "mpicc")
  endif()
endif()
if(NOT IS_ABSOLUTE "${_wisp_cc}")
  find_program(_wisp_cc_path NAMES "${_wisp_cc}" NO_CACHE)
  if(NOT _wisp_cc_path)
    message(FATAL_ERROR "wisp: no MPI C compiler '${_wisp_cc}' in PATH; give one: -DMPI_C_COMPILER=/path/to/mpicc")
  endif()
  set(_wisp_cc "${_wisp_cc_path}")
endif()
if(NOT EXISTS "${_wisp_cc}")
  message(FATAL_ERROR "wisp: MPI_C_COMPILER '${_wisp_cc}' does not exist")
endif()
set(MPI_C_COMPILER "${_wisp_cc}" CACHE FILEPATH "the MPI's C compiler wrapper" FORCE)
if(_wisp_chose)
  set(_WISP_CHOSEN_CC "${_wisp_cc}" CACHE INTERNAL "")
else()
  unset(_WISP_CHOSEN_CC CACHE)
endif()

# The launcher beside the wrapper: mpiexec<suffix> for mpicc<suffix>.
get_filename_component(_wisp_cc_dir "${_wisp_cc}" DIRECTORY)
get_filename_component(_wisp_cc_name "${_wisp_cc}" NAME)
string(REGEX REPLACE "^mpicc" "" _wisp_suffix "${_wisp_cc_name}")
set(_wisp_exec "${MPIEXEC_EXECUTABLE}")
if(NOT _wisp_exec OR _wisp_exec STREQUAL "${_WISP_CHOSEN_MPIEXEC}"
   OR _wisp_exec MATCHES "^/usr/bin/mpiexec\\.(mpich|openmpi)$")
  set(_wisp_exec "")
  foreach(name "mpiexec${_wisp_suffix}" mpiexec)
    if(EXISTS "${_wisp_cc_dir}/${name}")
      set(_wisp_exec "${_wisp_cc_dir}/${name}")
      break()
    endif()
  endforeach()
  if(NOT _wisp_exec)
    message(FATAL_ERROR "wisp: no mpiexec beside ${_wisp_cc} (looked for mpiexec${_wisp_suffix} and mpiexec in ${_wisp_cc_dir}); give one: -DMPIEXEC_EXECUTABLE=/path/to/mpiexec")
  endif()
  set(_WISP_CHOSEN_MPIEXEC "${_wisp_exec}" CACHE INTERNAL "")
endif()
set(MPIEXEC_EXECUTABLE "${_wisp_exec}" CACHE FILEPATH "the MPI's launcher" FORCE)

# The family and version, from the macros of the wrapper's mpi.h. Intel MPI
# defines MPICH's macros too, so it is asked first.
set(_wisp_probe_dir "${PROJECT_BINARY_DIR}/gen")
file(MAKE_DIRECTORY "${_wisp_probe_dir}")
file(WRITE "${_wisp_probe_dir}/probe_mpi_family.c" [[
#include <mpi.h>
#if defined(I_MPI_VERSION)
wisp_family=intel wisp_version=I_MPI_VERSION
#elif defined(MPICH_VERSION)
wisp_family=mpich wisp_version=MPICH_VERSION
#elif defined(OMPI_MAJOR_VERSION)
wisp_family=openmpi wisp_version=OMPI_MAJOR_VERSION/OMPI_MINOR_VERSION/OMPI_RELEASE_VERSION
#elif defined(MPI_ABI_VERSION)
wisp_family=abi wisp_version=MPI_ABI_VERSION/MPI_ABI_SUBVERSION
#else
wisp_family=unknown wisp_version=MPI_VERSION/MPI_SUBVERSION
#endif
#if defined(MPI_ABI_VERSION)
wisp_abi=MPI_ABI_VERSION/MPI_ABI_SUBVERSION
#endif
]])
execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C "${_wisp_cc}" -E -P "${_wisp_probe_dir}/probe_mpi_family.c"
                OUTPUT_VARIABLE _wisp_probe ERROR_VARIABLE _wisp_probe_err RESULT_VARIABLE _wisp_rc)
if(NOT _wisp_rc EQUAL 0)
  string(REGEX REPLACE "\n.*" "" _wisp_probe_err "${_wisp_probe_err}")
  message(FATAL_ERROR "wisp: ${_wisp_cc} cannot preprocess a program that includes mpi.h: ${_wisp_probe_err}")
endif()
# One line each, the version's parts joined by '/' (spaces between the
# tokens of OMPI's numbers: "5 / 0 / 11"; MPICH's is a string).
string(REGEX REPLACE "[ \t\"]*/[ \t\"]*" "/" _wisp_probe "${_wisp_probe}")
string(REPLACE "\"" "" _wisp_probe "${_wisp_probe}")
string(REGEX MATCH "wisp_family=([a-z]+)" _m "${_wisp_probe}")
set(_wisp_family "${CMAKE_MATCH_1}")
string(REGEX MATCH "wisp_version=([^ \n]+)" _m "${_wisp_probe}")
string(REPLACE "/" "." _wisp_version "${CMAKE_MATCH_1}")
string(REGEX MATCH "wisp_abi=([^ \n]+)" _m "${_wisp_probe}")
string(REPLACE "/" "." WISP_MPI_ABI_VERSION "${CMAKE_MATCH_1}")

if(_wisp_family STREQUAL "intel")
  message(FATAL_ERROR "wisp: ${_wisp_cc} is Intel MPI ${_wisp_version} (I_MPI_VERSION in its mpi.h), which wisp does not build against yet; libwisp-mpich built over MPICH runs over it (issue 50)")
elseif(NOT _wisp_family MATCHES "^(mpich|openmpi|abi)$")
  set(_wisp_what "an mpi.h of MPI ${_wisp_version} with neither MPICH_VERSION, OMPI_MAJOR_VERSION, I_MPI_VERSION nor MPI_ABI_VERSION")
  message(FATAL_ERROR "wisp: unknown MPI: ${_wisp_cc} compiles with ${_wisp_what}; wisp builds over MPICH, Open MPI and the MPI-5 standard ABI")
endif()
if(NOT _wisp_version MATCHES "^[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "wisp: ${_wisp_cc} is ${_wisp_family} with an unreadable version '${_wisp_version}'")
endif()
if(_wisp_asked AND NOT _wisp_asked STREQUAL _wisp_family)
  message(FATAL_ERROR "wisp: WISP_MPI=${_wisp_asked}, but ${_wisp_cc} is ${_wisp_family} ${_wisp_version} (its mpi.h); leave WISP_MPI out or give that MPI's wrapper")
endif()
if(NOT _wisp_asked)
  set(_WISP_MPI_PROBED "${_wisp_family}" CACHE INTERNAL "")
endif()
set(WISP_MPI "${_wisp_family}" CACHE STRING "" FORCE)
# The implementation beneath (WISP_MPI_IMPL, WISP_MPI_IMPL_VERSION): the
# family itself, or, for the standard ABI, what its library says it is
# (MPI_Get_library_version, which needs no MPI_Init). Quirks, the tests and
# the launcher's options key on it: Hydra's (-genv) for MPICH, Open MPI's
# (-x, --oversubscribe) for Open MPI (WISP_LAUNCHER_STYLE).
set(WISP_MPI_IMPL "${_wisp_family}")
set(WISP_MPI_IMPL_VERSION "${_wisp_version}")
if(_wisp_family STREQUAL "abi")
  file(WRITE "${_wisp_probe_dir}/probe_mpi_library.c" [[
#include <mpi.h>
#include <stdio.h>
int main(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    puts(version);
    return 0;
}
]])
  set(_wisp_library "")
  execute_process(COMMAND "${_wisp_cc}" -o "${_wisp_probe_dir}/probe_mpi_library"
                          "${_wisp_probe_dir}/probe_mpi_library.c"
                  RESULT_VARIABLE _wisp_rc OUTPUT_VARIABLE _wisp_library ERROR_VARIABLE _wisp_library)
  if(_wisp_rc EQUAL 0)
    execute_process(COMMAND "${_wisp_probe_dir}/probe_mpi_library" TIMEOUT 60
                    RESULT_VARIABLE _wisp_rc OUTPUT_VARIABLE _wisp_library ERROR_VARIABLE _wisp_library)
  endif()
  if(_wisp_library MATCHES "MPICH Version:[ \t]*([0-9][0-9.]*)")
    set(WISP_MPI_IMPL mpich)
  elseif(_wisp_library MATCHES "Open MPI v([0-9][0-9.]*)")
    set(WISP_MPI_IMPL openmpi)
  else()
    string(REGEX REPLACE "^[ \n]+" "" _wisp_library "${_wisp_library}")
    string(REGEX REPLACE "\n.*" "" _wisp_library "${_wisp_library}")
    if(_wisp_rc EQUAL 0)
      set(_wisp_what "says '${_wisp_library}' (MPICH and Open MPI are known)")
    else()
      set(_wisp_what "does not build or run: ${_wisp_library}")
    endif()
    message(FATAL_ERROR "wisp: cannot tell which MPI implements the MPI-5 standard ABI of ${_wisp_cc}: a program of MPI_Get_library_version built with it ${_wisp_what}")
  endif()
  set(WISP_MPI_IMPL_VERSION "${CMAKE_MATCH_1}")
endif()
set(WISP_LAUNCHER_STYLE "${WISP_MPI_IMPL}")
set(WISP_MPI_IMPL_CACHED "${WISP_MPI_IMPL}" CACHE INTERNAL "the implementation beneath, for tools/demo.sh")
string(REGEX MATCH "^[0-9]+" WISP_MPI_IMPL_VERSION_MAJOR "${WISP_MPI_IMPL_VERSION}")
set(WISP_MPI_VERSION "${_wisp_version}")
string(REGEX MATCH "^[0-9]+" WISP_MPI_VERSION_MAJOR "${_wisp_version}")
if(WISP_MPI STREQUAL "abi")
  set(_wisp_beneath " over ${WISP_MPI_IMPL} ${WISP_MPI_IMPL_VERSION}")
endif()
message(STATUS "wisp: the MPI is ${WISP_MPI} ${WISP_MPI_VERSION}${_wisp_beneath} (${_wisp_cc}, launcher ${MPIEXEC_EXECUTABLE})")
