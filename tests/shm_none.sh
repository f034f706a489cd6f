#!/usr/bin/env bash
# shm_none.sh MPI WISPRUN PRELOAD PROGRAM
# No /dev/shm at all (issue 49, item 3: some containers): in a private
# mount namespace /dev is a fresh tmpfs holding only the devices a job
# needs. The MPI runs natively without it; under wisp (wisprun and the
# MPI's mpiexec with LD_PRELOAD) the heap and the engine are off, each said
# once with WISP_VERBOSE=1, the program gets private memory and its output
# equals the native run's (tests/mpi/latetouch.c: 8 x 24 MiB per process,
# written, two blocks sent). Exit 77 (skipped) without the namespace.
set -u
mpi=$1 wisprun=$2 preload=$3 program=$4
here=$(cd "$(dirname "$0")" && pwd)
unshare -m true 2>/dev/null || { echo "SKIP: cannot make a mount namespace (unshare -m needs root)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
touch "$work/go"

# no_shm NAME COMMAND...: stdout (sorted) in $work/NAME.out, stderr in .err, status in .status.
no_shm() {
    local name=$1
    shift
    LATETOUCH_READY=$work/ready LATETOUCH_GO=$work/go unshare -m bash -c '
        old=$(mktemp -d) && mount --rbind /dev "$old" || exit 77
        mount -t tmpfs -o size=1m,mode=755 wisp-nodev /dev || exit 77
        for d in null zero full random urandom tty ptmx; do
            [ -e "$old/$d" ] && touch "/dev/$d" && mount --bind "$old/$d" "/dev/$d"
        done
        mkdir /dev/pts && mount --rbind "$old/pts" /dev/pts
        ln -s /proc/self/fd /dev/fd
        umount -l "$old" && rmdir "$old"
        [ ! -e /dev/shm ] || exit 77
        exec timeout 100 "$@"' -- "$@" >"$work/$name.raw" 2>"$work/$name.err"
    echo $? >"$work/$name.status"
    # UCX says on stdout, with times and pids, that it misses /dev/shm.
    grep -Ev "UCX +(ERROR|WARN)" "$work/$name.raw" | sort >"$work/$name.out"
    if [ "$(cat "$work/$name.status")" = 77 ]; then
        echo "SKIP: cannot replace /dev in a mount namespace"
        exit 77
    fi
}

native=("mpiexec.$mpi" -n 2)
[ "$mpi" = openmpi ] && native+=(--oversubscribe --allow-run-as-root)
no_shm native "${native[@]}" "$program"
[ "$(cat "$work/native.status")" = 0 ] || { cat "$work/native.err"; fail "the native run failed without /dev/shm"; }
grep -q "^latetouch: block 7 of 24 MiB intact$" "$work/native.out" || fail "native: no result"

no_shm wisprun "$wisprun" --env WISP_VERBOSE=1 -n 2 "$program"
no_shm preload bash "$here/mpiexec_preload.sh" "$mpi" 2 "$preload" WISP_VERBOSE=1 -- "$program"
for name in wisprun preload; do
    echo "== $name"
    cat "$work/$name.raw" "$work/$name.err"
    [ "$(cat "$work/$name.status")" = 0 ] || fail "$name: exit status $(cat "$work/$name.status")"
    diff -u "$work/native.out" "$work/$name.out" || fail "$name: stdout differs from the native run's"
    [ "$(grep -c "^wisp\[0\]: shared heap off on this node: cannot create the shared file in /dev/shm$" "$work/$name.err")" = 1 ] ||
        fail "$name: wisp did not say once that the heap is off"
    grep -q "^wisp\[0\]: point-to-point engine off on this node" "$work/$name.err" ||
        fail "$name: wisp did not say that the engine is off"
done
exit $failed
