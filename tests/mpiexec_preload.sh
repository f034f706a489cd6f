#!/usr/bin/env bash
# mpiexec_preload.sh MPI NP PRELOAD [NAME=VALUE...] -- PROGRAM [ARGS...]
# Runs PROGRAM on NP processes with the MPI's own mpiexec and libwisp in
# LD_PRELOAD, as the README says to run without wisprun: no wisprun, no
# WISP_JOB, nothing else set for wisp (GLIBC_TUNABLES is removed from the
# environment). The exit status is mpiexec's. The MPI's mpiexec is the
# build's where MPI is the build's family (TEST_MPIEXEC_<MPI>,
# cmake/WispTests.cmake: the one beside the MPI's mpicc), or Debian's
# mpiexec.MPI.
set -u
mpi=$1 np=$2 preload=$3
shift 3
unset GLIBC_TUNABLES
launcher=TEST_MPIEXEC_$mpi
cmd=("${!launcher:-mpiexec.$mpi}" -n "$np")
style=$mpi
[ "$mpi" != abi ] || style=${TEST_MPI_IMPL:?the MPI beneath the abi build}
case "$style" in
mpich) cmd+=(-genv LD_PRELOAD "$preload") ;;
openmpi)
    cmd+=(--oversubscribe -x "LD_PRELOAD=$preload")
    [ "$(id -u)" != 0 ] || cmd+=(--allow-run-as-root)
    ;;
*) echo "mpiexec_preload.sh: unknown MPI '$mpi'" >&2; exit 2 ;;
esac
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$style" in
    mpich) cmd+=(-genv "${1%%=*}" "${1#*=}") ;;
    openmpi) cmd+=(-x "$1") ;;
    esac
    shift
done
[ $# -gt 1 ] || { echo "mpiexec_preload.sh: no program given" >&2; exit 2; }
shift
exec "${cmd[@]}" "$@"
