#!/usr/bin/env bash
# nwchem.sh [INPUT]: one process of NWChem (Debian's nwchem-mpich or
# nwchem-openmpi, by the launcher that started this process) on INPUT
# (tests/real/h2o.nw by default: the CCSD(T) energy of water in cc-pVDZ),
# run as a child so that rank 0 can then check the energy against the
# reference to 1e-8 hartree and print the time as bench/run.py's metric
# line (the time of the whole program, MPI_Init to exit, as rank 0 saw it).
# For `make report`'s experiment nwchem (bench/apps/report.py).
set -u
here=$(cd "$(dirname "$0")" && pwd)
input=${1:-$here/../../tests/real/h2o.nw}
reference=-76.2468958630
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
if [ -n "${OMPI_COMM_WORLD_RANK:-}" ]; then program=nwchem.openmpi; else program=nwchem.mpich; fi
work=${TMPDIR:-/tmp}/wisp-nwchem-$PPID
mkdir -p "$work" && cp "$input" "$work/input.nw" 2>/dev/null
cd "$work" || exit 1
start=$(date +%s%N)
"$program" input.nw >"out.$rank" 2>&1
status=$?
ms=$((($(date +%s%N) - start) / 1000000))
seconds=$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))
if [ "$rank" = 0 ]; then
    energy=$(sed -n 's/^ *CCSD(T) total energy \/ hartree *= *//p' "out.0" | head -1)
    if [ $status != 0 ] || [ -z "$energy" ] ||
        ! python3 -c "import sys; sys.exit(abs(float('$energy') - $reference) > 1e-8)"; then
        echo "nwchem: status $status, energy '$energy' (reference $reference)" >&2
        tail -20 out.0 >&2
        status=1
    else
        echo "metric wall_s $seconds s lower"
    fi
    sleep 1 && rm -rf "$work" &
fi
exit $status
