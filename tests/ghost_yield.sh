#!/usr/bin/env bash
# ghost_yield.sh MPI WISPRUN PROGRAM
# Open MPI yields the processor in every empty progress poll where mpirun
# finds more processes than slots on a node (mpi_yield_when_idle), and
# mpirun counts wisp's ghosts: wisp turns the yield off where the node's
# application processes alone fit its slots, as natively, unless the
# ghosts serve Open MPI's windows (WISP_GHOST_WINDOWS=on; auto gives it back
# after MPI_Init where it serves, osc pt2pt), and leaves it
# alone everywhere else (src/core/quirks.c). PROGRAM
# (tests/mpi/yield_when_idle.c) prints the MPI's setting and the
# environment's. Open MPI runs on 2 slots (--host localhost:2) whatever the
# machine; MPICH has no such setting, and wisp sets nothing for it.
set -u
mpi=$1 wisprun=$2 program=$3
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# check NP WANT_YIELD WANT_ENV [--env NAME=VALUE...]
check() {
    local np=$1 yield=$2 env=$3 args=()
    shift 3
    [ "$mpi" = openmpi ] && args=(--mpiexec-arg --host --mpiexec-arg localhost:2)
    echo "== -n $np $*: expect yield $yield, env $env"
    out=$(timeout 60 "$wisprun" "${args[@]}" "$@" -n "$np" "$program" 2>&1)
    status=$?
    echo "$out"
    [ "$status" = 0 ] || fail "exit status $status"
    grep -qx "yield $yield" <<<"$out" || fail "-n $np $*: not 'yield $yield'"
    grep -qx "env $env" <<<"$out" || fail "-n $np $*: not 'env $env'"
}

case "$mpi" in
openmpi)
    check 2 0 unset                                         # fits: no yield
    check 3 1 unset                                         # 3 on 2 slots: Open MPI's yield
    check 3 0 0 --env WISP_GHOSTS=1                         # 2 + a ghost: as natively
    check 4 1 unset --env WISP_GHOSTS=1                     # 3 + a ghost: still too many
    check 4 0 0 --env WISP_GHOSTS=1 --env WISP_VNODE_SIZE=2 # 2 nodes of 1 + a ghost
    check 3 1 1 --env WISP_GHOSTS=1 --env OMPI_MCA_mpi_yield_when_idle=1 # the user's choice
    check 3 1 unset --env WISP_GHOSTS=1 --env WISP_GHOST_WINDOWS=on # the ghost serves: it needs the yield
    check 3 1 0 --env WISP_GHOSTS=1 --env OMPI_MCA_osc=pt2pt # auto serves (osc pt2pt): given back
    ;;
mpich)
    check 3 none unset --env WISP_GHOSTS=1
    ;;
esac
exit $failed
