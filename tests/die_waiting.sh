#!/usr/bin/env bash
# die_waiting.sh MPI LAUNCH WISPRUN PRELOAD PROGRAM SHIM
# A process killed (SIGKILL) while the others wait for it ends the job
# within seconds, and leaves no file of wisp's in /dev/shm, under each way
# of launching (LAUNCH):
#   wisprun  wisprun, which names the job's files (WISP_JOB) and removes them;
#   preload  the MPI's mpiexec with LD_PRELOAD and no WISP_JOB, in a /dev/shm
#            of its own (unshare -m, root), so that any wisp* file there is
#            this job's;
#   srun     srun without -K on a Slurm bed of this machine (tools/slurm.sh;
#            77, skipped, where it cannot start), Slurm's default, which
#            leaves the others waiting: wisp's watcher ends the job.
# Seven deaths (PROGRAM is tests/mpi/die_waiting.c): rank 1 while rank 0
# waits in a receive from it; rank 1 while rank 0 waits for it in an
# allreduce that wisp serves through the heap (src/coll); the ghost (WISP_GHOSTS=1) that serves a window
# while rank 1 accumulates through it and rank 0 waits for rank 1; rank 1
# while rank 0 waits for it in MPI_Finalize; with 4 processes on virtual
# nodes of two, rank 1 (rank 0's node peer) and rank 2 (the other node's
# leader) while the others wait in a nonblocking allreduce that wisp
# serves in stages; rank 1 in
# MPI_Init, as it opens the heap's file that rank 0 made (SHIM,
# tests/shims/die_opening.c), before rank 0 could remove its name. Each job:
# not exit status 0, no "survived", ended less than 10 s after the death.
# The death in MPI_Init under srun runs without WISP_JOB: rank 0's watcher
# removes the file it made, by the name the shim printed. Under mpiexec
# with LD_PRELOAD and no tag, MPICH's mpiexec kills rank 0 before it can:
# that file is only reported (docs/design.md).
set -u
mpi=$1 launch=$2 wisprun=$3 preload=$4 program=$5 shim=$6
here=$(cd "$(dirname "$0")" && pwd)
failed=0
fail() { echo "FAIL: $*"; failed=1; }
limit=10
dir=$(mktemp -d /tmp/wisp-die.XXXXXX)
trap 'rm -rf "$dir"' EXIT

if [ "$launch" = srun ]; then
    bed=$here/../tools/slurm.sh
    bash "$bed" check || exit $?
    trap 'bash "$bed" down "$dir/bed"; rm -rf "$dir"' EXIT
    bash "$bed" up "$dir/bed" task/none >/dev/null || { echo "SKIP: the Slurm bed did not start"; exit 77; }
    . "$dir/bed/env"
    plugin=$([ "$mpi" = mpich ] && echo pmi2 || echo pmix)
fi
if [ "$launch" = preload ] && ! unshare -m true 2>/dev/null; then
    echo "SKIP: no mount namespace of its own here (unshare -m needs root)"
    exit 77
fi

# The command for `np` processes with the settings given, on stdout as one
# line per word; `job` empty: no WISP_JOB; `more` a library preloaded after
# libwisp.
command_for() {
    local np=$1 job=$2 more=$3
    shift 3
    case "$launch" in
    wisprun)
        printf '%s\n' env "WISP_JOB=$job" "LD_PRELOAD=$more" "$wisprun"
        for kv in "$@"; do printf '%s\n' --env "$kv"; done
        printf '%s\n' -n "$np"
        ;;
    preload) printf '%s\n' bash "$here/mpiexec_preload.sh" "$mpi" "$np" "$preload${more:+:$more}" "$@" -- ;;
    srun)
        local export="ALL,LD_PRELOAD=$preload${more:+:$more}${job:+,WISP_JOB=$job}"
        for kv in "$@"; do export+=",$kv"; done
        printf '%s\n' srun -O -n "$np" "--mpi=$plugin" "--export=$export"
        ;;
    esac
}

# run NAME NP MODE [NAME=VALUE...]: one job, checked; with `more` and
# `tagged` as the caller sets them.
more="" tagged=1
run() {
    local name=$1 np=$2 mode=$3 job="die-$1-$$" cmd status end killed left out
    shift 3
    [ "$tagged" = 1 ] || job=""
    mapfile -t cmd < <(command_for "$np" "$job" "$more" "$@")
    out=$dir/$name.out
    if [ "$launch" = preload ]; then
        # Its own /dev/shm: every wisp* file there is this job's, tag or not.
        unshare -m bash -c 'mount -t tmpfs -o size=512m tmpfs /dev/shm || exit 99
            timeout 60 "$@"; status=$?; date +%s.%N >"$0.end"
            echo "left in /dev/shm: $(ls /dev/shm | grep -c "^wisp")" >"$0.left"; exit $status' \
            "$out" "${cmd[@]}" "$program" "$mode" >"$out" 2>&1
        status=$?
        [ "$status" != 99 ] || { fail "$name: cannot mount a tmpfs on /dev/shm"; return; }
        left=$(sed 's/.*: //' "$out.left" 2>/dev/null || echo "?")
    else
        timeout 60 "${cmd[@]}" "$program" "$mode" >"$out" 2>&1
        status=$?
        date +%s.%N >"$out.end"
        if [ -n "$job" ]; then
            left=$(ls /dev/shm | grep -c "^wisp-$job+")
            rm -f /dev/shm/wisp-"$job"+*
        else # the file the shim named, made by rank 0 for this job
            local file=$(sed -n 's/^die_waiting: killed opening \(.*\) at .*/\1/p' "$out" | head -1)
            left=0
            [ -z "$file" ] || [ ! -e "/dev/shm$file" ] || { left=1; rm -f "/dev/shm$file"; }
        fi
    fi
    end=$(cat "$out.end")
    killed=$(sed -n 's/^die_waiting: killed .* at \([0-9.]*\)$/\1/p' "$out" | head -1)
    local after=$(awk -v e="$end" -v k="${killed:-0}" 'BEGIN {printf "%.1f", k ? e - k : -1}')
    echo "--- $launch, $name: exit $status, ended $after s after the death, files of wisp's left: $left"
    grep -E '^wisp|^die_waiting' "$out"
    [ -n "$killed" ] || fail "$name: no death reported (the program did not get that far)"
    [ "$status" != 0 ] || fail "$name: exit status 0"
    [ "$status" != 124 ] || fail "$name: still running after 60 s"
    ! grep -q 'die_waiting: survived' "$out" || fail "$name: a wait returned after the death"
    awk -v a="$after" -v l="$limit" 'BEGIN {exit !(a >= 0 && a < l)}' ||
        fail "$name: ended $after s after the death (at most $limit)"
    if [ "$left" != 0 ] && [ "$name" = init ] && [ "$launch" = preload ] && [ "$mpi" = mpich ]; then
        echo "(known: mpiexec killed rank 0 before its watcher could remove the file)"
    else
        [ "$left" = 0 ] || fail "$name: $left files of wisp's left in /dev/shm"
    fi
}

run recv 2 recv
run coll 2 coll
# Open MPI's windows are served by ghosts only when asked (docs/ghosts.md).
run ghost 3 ghost WISP_GHOSTS=1 WISP_GHOST_WINDOWS=on
run finalize 2 finalize
# A nonblocking allreduce across virtual nodes (src/coll/hier.h): a node
# peer dies, then the other node's leader.
run icoll1 4 icoll1 WISP_VNODE_SIZE=2 WISP_COLL=on
run icoll2 4 icoll2 WISP_VNODE_SIZE=2 WISP_COLL=on
[ "$launch" = srun ] && tagged=0
more=$shim run init 2 recv DIE_OPENING=heap
[ "$failed" = 0 ] || { echo "--- outputs"; tail -n 20 "$dir"/*.out; }
exit $failed
