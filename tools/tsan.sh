#!/bin/bash
# ThreadSanitizer over wisp's threads (docs/testing.md, "ThreadSanitizer (by
# hand)"): the tests that run threads of wisp's or MPI_THREAD_MULTIPLE, under
# Open MPI, 2 or 3 processes each. Prints each run's verdict and report count;
# the reports stay in OUT (default build/openmpi-tsan/tsan-logs), one file a
# process.
#
# usage: tools/tsan.sh [BUILD [OUT]]     (BUILD: default build/openmpi-tsan)
set -u
build=${1:-build/openmpi-tsan}
out=${2:-$build/tsan-logs}
lib=$(gcc -print-file-name=libtsan.so)
if [ ! -f "$build/libwisp.so" ] || [ ! -f "$lib" ]; then
    echo "tsan.sh: no $build/libwisp.so or no $lib: build the TSan configuration first" >&2
    exit 2
fi
mkdir -p "$out"
# ignore_noninstrumented_modules: what Open MPI's own (uninstrumented) code
# does through interceptors (memcpy into a receive buffer, its mutexes) is
# not seen; its synchronization is invisible anyway (inline-assembly atomics),
# so those reports were all false. wisp's own accesses are all seen.
# tests/tsan.supp: the races tests make on purpose.
base="ignore_noninstrumented_modules=1 halt_on_error=0 suppressions=$PWD/tests/tsan.supp"
total=0

# run NAME NP "TSAN_OPTIONS extra" "WISP_X=.. ..." PROGRAM ARGS...
run() {
    local name=$1 np=$2 topt=$3 env=$4
    shift 4
    local xs=()
    for e in $env; do xs+=(-x "$e"); done
    rm -f "$out/$name".log.*
    timeout 300 mpiexec.openmpi --oversubscribe --allow-run-as-root -n "$np" \
        -x UCX_MEM_EVENTS=no -x TSAN_OPTIONS="log_path=$out/$name.log $base $topt" \
        -x LD_PRELOAD="$lib:$PWD/$build/libwisp.so" "${xs[@]}" \
        "$build/tests/$@" >"$out/$name.out" 2>&1
    local rc=$? n
    n=$(cat "$out/$name".log.* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer')
    total=$((total + n))
    printf '%-22s rc=%-3s reports=%-3s %s\n' "$name" "$rc" "$n" "$(head -n1 "$out/$name.out" | cut -c1-60)"
}

run ult_mpi.threads2 2 "" "WISP_ULT_THREADS=2" t_ult_mpi
run ult_mpi.threads2.vnode1 2 "" "WISP_ULT_THREADS=2 WISP_VNODE_SIZE=1" t_ult_mpi
run progress_thread 2 "" "WISP_PROGRESS=thread WISP_PROGRESS_LINGER=2000" t_progress_thread
run progress_thread.vnode1 2 "" "WISP_PROGRESS=thread WISP_PROGRESS_LINGER=2000 WISP_VNODE_SIZE=1" \
    t_progress_thread
run p2p_threads 2 "" "" t_p2p_threads 256
run p2p_threads_requests 2 "" "" t_p2p_threads_requests
run p2p_threads_requests.progress 2 "" "WISP_PROGRESS=thread" t_p2p_threads_requests
run p2p_rescuer 2 "" "" t_p2p_rescuer
run p2p_comm_create 2 "" "" t_p2p_comm_create
run p2p_semantics.progress 3 "" "WISP_PROGRESS=thread" t_p2p_semantics
# jemalloc's fork handlers hold more locks at once than the deadlock detector
# can (64); the heap itself is not under test (TSan's malloc comes first).
run shm_heap_threads 2 "detect_deadlocks=0" "" t_shm_heap_threads
run ghost_threads.create 2 "" "" t_ghost_threads create
run ghost_threads.create.ghosts1 3 "" "WISP_GHOSTS=1" t_ghost_threads create
run ghost_threads.flush 3 "" "" t_ghost_threads flush
run init_thread.multiple 2 "" "" t_init_thread multiple
echo "tsan.sh: $total reports in all (in $out)"
