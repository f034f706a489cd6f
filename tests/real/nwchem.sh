#!/usr/bin/env bash
# nwchem.sh WISPRUN MPI
# NWChem 7.0.2 from Debian (nwchem-mpich, nwchem-openmpi), unmodified: the
# CCSD(T) energy of one water molecule in the cc-pVDZ basis (h2o.nw beside
# this script), whose tensor contractions reach the MPI through ARMCI-MPI's
# one-sided operations (passive-target epochs, get-accumulate counters,
# flushes polled millions of times) and create and free a thousand windows.
# It runs natively (with ARMCI_USE_WIN_ALLOCATE=0: MPICH 4.0.2's own
# MPI_Win_allocate fails NWChem), under wisp, and with a ghost process
# (always, and adaptive), each on 2 application processes; every energy
# must be the reference to 1e-8 hartree.
set -u
wisprun=$1 mpi=$2
program=nwchem.$mpi
if ! command -v "$program" >/dev/null; then
    echo "FAIL: no $program: install nwchem-$mpi (make deps does)"
    exit 1
fi
# In the sanitizer build: NWChem's own leaks at exit are not wisp's.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
reference=-76.2468958630
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$(dirname "$0")/h2o.nw" "$work"

failed=0
for how in native wisp ghost ghost_auto; do
    case $how in
    native) launch=("$wisprun" --native --env ARMCI_USE_WIN_ALLOCATE=0 -n 2) ;;
    wisp) launch=("$wisprun" -n 2) ;;
    ghost) launch=("$wisprun" --env WISP_GHOSTS=1 -n 3) ;;
    ghost_auto) launch=("$wisprun" --env WISP_GHOSTS=1 --env WISP_ASYNC=auto -n 3) ;;
    esac
    start=$(date +%s%N)
    (cd "$work" && timeout 300 "${launch[@]}" "$program" h2o.nw </dev/null >"$how.out" 2>&1)
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    seconds=$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))
    energy=$(sed -n 's/^ *CCSD(T) total energy \/ hartree *= *//p' "$work/$how.out" | head -1)
    if [ $status = 0 ] && [ -n "$energy" ] &&
        python3 -c "import sys; sys.exit(abs(float('$energy') - $reference) > 1e-8)"; then
        echo "ok: $how: CCSD(T) energy $energy in $seconds s"
    else
        echo "FAIL: $how: exit status $status, energy '${energy}' (reference $reference)"
        tail -20 "$work/$how.out"
        failed=1
    fi
done
exit $failed
