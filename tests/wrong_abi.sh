#!/usr/bin/env bash
# wrong_abi.sh FAMILY LIBWISP MPICC: libwisp built for the MPI-5 standard
# ABI (FAMILY abi) in a program of the implementation's own ABI, or
# libwisp-mpich in a program built for the standard ABI (FAMILY mpich), both
# over one MPICH that has both (the mpich wheel's mpicc and mpicc_abi beside
# MPICC, this build's wrapper): wisp steps aside with one line that names
# both, the program's output is the native run's, exit status 0; never a
# crash (src/core/mpi_check.c).
set -u
family=$1 lib=$2 mpicc=$3
bin=$(dirname "$mpicc")
case $family in
abi) other_cc=$bin/mpicc mine="the MPI-5 ABI" theirs="MPICH (libmpi.so.12)" ;;
mpich) other_cc=$bin/mpicc_abi mine=MPICH theirs="the MPI-5 ABI (libmpi_abi.so.1)" ;;
*) echo "wrong_abi.sh: unknown family '$family'" >&2; exit 2 ;;
esac
[ -x "$other_cc" ] && [ -x "$bin/mpiexec" ] || { echo "SKIP: no $other_cc or $bin/mpiexec"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$other_cc" -o "$tmp/prog" "$(dirname "$0")/wrong_mpi/program.c" || { echo "FAIL: cannot build with $other_cc"; exit 1; }

native=$(env -u LD_PRELOAD timeout 60 "$bin/mpiexec" -n 2 "$tmp/prog" 2>&1)
native_rc=$?
out=$(timeout 60 "$bin/mpiexec" -n 2 -genv LD_PRELOAD "$lib" "$tmp/prog" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
failed=0
[ "$native_rc" = 0 ] || { echo "FAIL: the native run failed ($native_rc): $native"; failed=1; }
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc under $lib"; failed=1; }
[ "$(grep -v '^wisp' <<<"$out" | sort)" = "$(sort <<<"$native")" ] ||
    { echo "FAIL: the output is not the native run's"; failed=1; }
line="wisp: this program uses $theirs, but $lib was built for $mine: running it without wisp"
[ "$(grep -c '^wisp' <<<"$out")" = 1 ] && grep -qF "$line" <<<"$out" ||
    { echo "FAIL: expected one line '$line...'"; failed=1; }
exit $failed
