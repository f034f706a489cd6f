#!/usr/bin/env bash
# preload_verbose.sh MPI PRELOAD PROGRAM: without wisprun (the MPI's mpiexec,
# LD_PRELOAD, nothing else set), WISP_VERBOSE=1 says in one line at start-up
# whether the shared heap serves, and when it does not, why; with another
# malloc (SHIM) preloaded ahead of libwisp, that it serves MPI_Alloc_mem
# alone. PROGRAM is shm_copies built for preloading (argument "off" with
# WISP_SHM=off). In the sanitizer build PRELOAD is "runtime:libwisp", and
# the runtime's malloc comes first anyway.
set -u
mpi=$1 preload=$2 program=$3 shim=$4
wisp=${preload##*:}
first=${preload%"$wisp"}
run=(bash "$(dirname "$0")/mpiexec_preload.sh" "$mpi" 2 "$preload")
failed=0
on=$("${run[@]}" WISP_VERBOSE=1 -- "$program" 2>&1 >/dev/null)
off=$("${run[@]}" WISP_VERBOSE=1 WISP_SHM=off -- "$program" off 2>&1 >/dev/null)
echo "$on"
echo "$off"
[ "$(grep -Ec 'shared heap (at|off)' <<<"$on")" = 1 ] && grep -q '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions of .* served from it' <<<"$on" ||
    { echo "FAIL: not one line saying that the heap serves"; failed=1; }
[ "$(grep -Ec 'shared heap (at|off)' <<<"$off")" = 1 ] && grep -q '^wisp\[0\]: shared heap off on this node: WISP_SHM=off$' <<<"$off" ||
    { echo "FAIL: not one line saying that the heap is off and why"; failed=1; }
other=$(bash "$(dirname "$0")/mpiexec_preload.sh" "$mpi" 2 "${first}$shim:$wisp" WISP_VERBOSE=1 \
        -- "$program" 2>&1 >/dev/null)
echo "$other"
grep -q '^wisp\[0\]: shared heap at .*; only MPI_Alloc_mem served from it (another malloc' <<<"$other" ||
    { echo "FAIL: with another malloc ahead, not one line saying that only MPI_Alloc_mem is served"; failed=1; }
if [ -z "$first" ]; then
    grep -q '^wisp\[0\]: shared heap at .*; malloc and MPI_Alloc_mem served from it' <<<"$on" ||
        { echo "FAIL: malloc is wisp's, but the line does not say that the heap serves it"; failed=1; }
fi
exit $failed
