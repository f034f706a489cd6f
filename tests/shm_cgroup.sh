#!/usr/bin/env bash
# shm_cgroup.sh MPI WISPRUN PROGRAM
# A memory cgroup (issue 49, item 3): tmpfs pages count against the cgroup
# of the process that commits or touches them, so a job that fits its
# memory limit natively must fit it under wisp. PROGRAM (tests/mpi/
# latetouch.c) allocates 8 x 24 MiB per process and uses 3 of those blocks
# (the rest is a pool it never touches, as NWChem's is partly): committed
# at once, the pool would cost 240 MiB more. The native job runs in a fresh
# cgroup without a limit and its peak is read; then the native job and the
# wisp job run with the limit set to that peak plus 24 MiB (wisp's own
# segments: the point-to-point slots, about 4.5 MiB a process here, and
# libwisp's pages), and both must end with the same output. A 4 GiB tmpfs
# in a private mount namespace stands for /dev/shm, so that the heap's
# budget for first-touch commits is the same everywhere. cgroup v2
# (memory.max, memory.peak) where the machine delegates the memory
# controller, else v1 (memory.limit_in_bytes); exit 77 (skipped) where no
# memory cgroup can be made, or without the namespace.
set -u
mpi=$1 wisprun=$2 program=$3
work=$(mktemp -d)
cgroups=()
cleanup() {
    for c in "${cgroups[@]}"; do rmdir "$c" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
skip() { echo "SKIP: $*"; exit 77; }
unshare -m true 2>/dev/null || skip "cannot make a mount namespace (unshare -m needs root)"

# Where new memory cgroups go: $parent and $kind (v2 or v1).
v2_mount=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
v2_path=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
v1_mount=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
v1_path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
kind=
if [ -n "$v2_mount" ] && [ -n "$v2_path" ] && grep -qw memory "$v2_mount$v2_path/cgroup.controllers" 2>/dev/null; then
    parent=$v2_mount$v2_path
    grep -qw memory "$parent/cgroup.subtree_control" || echo +memory >"$parent/cgroup.subtree_control" 2>/dev/null
    grep -qw memory "$parent/cgroup.subtree_control" && kind=v2
fi
if [ -z "$kind" ] && [ -n "$v1_mount" ] && [ -n "$v1_path" ] && [ -w "$v1_mount$v1_path" ]; then
    parent=$v1_mount$v1_path
    kind=v1
fi
[ -n "$kind" ] || skip "no memory cgroup can be created here (no delegated cgroup v2 memory controller, no writable v1 memory hierarchy)"

# in_cgroup NAME LIMIT COMMAND...: COMMAND in a fresh memory cgroup limited
# to LIMIT bytes (max: none), with a 4 GiB /dev/shm; stdout in
# $work/NAME.out (sorted), stderr in .err, status in .status, peak in .peak.
in_cgroup() {
    local name=$1 limit=$2 cg
    shift 2
    cg=$parent/wisp-test-$$-$name
    mkdir "$cg" || skip "cannot create a memory cgroup under $parent"
    cgroups+=("$cg")
    if [ $kind = v2 ]; then
        echo "$limit" >"$cg/memory.max" || skip "cannot set memory.max"
        echo 0 >"$cg/memory.swap.max" 2>/dev/null
        [ -e "$cg/memory.peak" ] || skip "no memory.peak in cgroup v2 (kernel before 5.19)"
    else
        [ "$limit" = max ] && limit=-1
        echo "$limit" >"$cg/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"
        echo 0 >"$cg/memory.swappiness" 2>/dev/null
    fi
    LATETOUCH_READY=$work/ready LATETOUCH_GO=$work/go CG=$cg unshare -m bash -c '
        mount -t tmpfs -o size=4g wisp-cgroup /dev/shm || exit 77
        echo $$ >"$CG/cgroup.procs" || exit 78
        exec timeout 100 "$@"' -- "$@" >"$work/$name.raw" 2>"$work/$name.err"
    echo $? >"$work/$name.status"
    sort "$work/$name.raw" >"$work/$name.out"
    if [ $kind = v2 ]; then cat "$cg/memory.peak"; else cat "$cg/memory.max_usage_in_bytes"; fi >"$work/$name.peak"
    case $(cat "$work/$name.status") in
    77) skip "cannot mount a tmpfs on /dev/shm" ;;
    78) skip "cannot move a process into $cg" ;;
    esac
}
touch "$work/go" # no one fills /dev/shm here
args=(malloc - 3)
native=("mpiexec.$mpi" -n 2)
[ "$mpi" = openmpi ] && native+=(--oversubscribe --allow-run-as-root)

in_cgroup measure max "${native[@]}" "$program" "${args[@]}"
[ "$(cat "$work/measure.status")" = 0 ] || { cat "$work/measure.err"; skip "the native job does not run in a cgroup here"; }
peak=$(cat "$work/measure.peak")
limit=$((peak + (24 << 20)))
echo "cgroup $kind under $parent: native peak $((peak >> 20)) MiB, limit $((limit >> 20)) MiB"

in_cgroup native "$limit" "${native[@]}" "$program" "${args[@]}"
[ "$(cat "$work/native.status")" = 0 ] || { cat "$work/native.err"; fail "the native job does not fit its own peak + 24 MiB"; }
in_cgroup wisp "$limit" "$wisprun" --env WISP_VERBOSE=1 -n 2 "$program" "${args[@]}"
echo "== wisp: peak $(($(cat "$work/wisp.peak") >> 20)) MiB, exit status $(cat "$work/wisp.status")"
cat "$work/wisp.raw" "$work/wisp.err"
[ "$(cat "$work/wisp.status")" = 0 ] || fail "the job does not fit under wisp (exit status $(cat "$work/wisp.status"))"
diff -u "$work/native.out" "$work/wisp.out" || fail "stdout differs from the native run's"
grep -q "malloc and MPI_Alloc_mem served from it\|only MPI_Alloc_mem served" "$work/wisp.err" ||
    fail "the heap did not serve"
exit $failed
