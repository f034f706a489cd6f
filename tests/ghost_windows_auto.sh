#!/usr/bin/env bash
# ghost_windows_auto.sh MPI MAJOR WISPRUN PROGRAM
# WISP_GHOST_WINDOWS=auto serves windows where the MPI needs the target's
# help for one-sided operations (src/ghost/target_help.c), and WISP_VERBOSE
# says which and why. MPICH 4: served. MPICH 5 on one machine: not served
# (its windows there need no target). Open MPI: decided by the one-sided
# component its windows get: osc/rdma (Debian's default here, over shared
# memory) not served; osc/pt2pt served, also over TCP (btl tcp, as between
# machines without RDMA). PROGRAM (tests/mpi/rma_counter.c) checks its
# results in every case; it runs on 3 processes with 1 ghost.
set -u
mpi=$1 major=$2 wisprun=$3 program=$4
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# check WANT WHY [MPIEXEC-ARGS...]: WANT is "served" or "not served".
check() {
    local want=$1 why=$2 args=()
    shift 2
    for a; do args+=(--mpiexec-arg "$a"); done
    echo "== ${*:-defaults}: expect $want"
    out=$(timeout 100 "$wisprun" --env WISP_GHOSTS=1 --env WISP_VERBOSE=2 "${args[@]}" -n 3 "$program" 2>&1)
    status=$?
    echo "$out" | grep -E "ghost windows|served by ghosts|FAIL|check failed"
    [ "$status" = 0 ] || { echo "$out"; fail "exit status $status"; }
    grep -qF "wisp[0]: ghost windows $want (WISP_GHOST_WINDOWS=auto: $why)" <<<"$out" ||
        fail "not '$want ($why)'"
    if [ "$want" = served ]; then
        grep -q "^wisp\[0\]: MPI_Win_allocate: served by ghosts" <<<"$out" || fail "window not served"
    else
        grep -q "^wisp\[0\]: MPI_Win_allocate: windows not served by ghosts (WISP_GHOST_WINDOWS=auto: $why)" <<<"$out" ||
            fail "no line saying that the window is not served"
    fi
}

case "$mpi" in
mpich)
    if [ "$major" -ge 5 ]; then
        check "not served" "MPICH 5 applies one-sided operations within a machine without the target"
    else
        check served "MPICH needs the target's help"
    fi
    ;;
openmpi)
    check "not served" "Open MPI's osc/rdma progresses without the target's help"
    check served "Open MPI's osc/pt2pt needs the target's help" --mca osc pt2pt
    check served "Open MPI's osc/pt2pt needs the target's help" --mca osc pt2pt --mca btl tcp,self
    ;;
esac
exit $failed
