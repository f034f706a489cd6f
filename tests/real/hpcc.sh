#!/usr/bin/env bash
# hpcc.sh WISPRUN
# HPC Challenge 1.5.0 from Debian (hpcc, built for Open MPI only), unmodified:
# HPL, DGEMM, STREAM, PTRANS, RandomAccess (MPIRandomAccess polls one
# MPI_ANY_SOURCE/MPI_ANY_TAG receive with MPI_Testany before every update
# and sends buckets of up to 1024 with MPI_Isend), FFT and the ping-pong and
# ring latencies, on 2 processes, with HPCC's example input (the one Debian
# ships) but a small problem (N=500, P=1, Q=2). It runs natively and under
# wisp; each run must end with HPCC's own verdicts clean: Success=1 (every
# kernel's check), 0 errors of MPIRandomAccess and MPIRandomAccess_LCG (HPCC
# tolerates 1%: wisp must lose none), HPL's and PTRANS's residual checks
# all passed. GUP/s are printed, not checked (timings: docs/benchmarks.md).
set -u
wisprun=$1
example=/usr/share/doc/hpcc/examples/_hpccinf.txt
if ! command -v hpcc >/dev/null || [ ! -f "$example" ]; then
    echo "FAIL: no hpcc or no $example: install hpcc (make deps does)"
    exit 1
fi
# In a sanitizer build: HPCC's own leaks at exit are not wisp's.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# value KEY FILE: the summary's KEY=value line of HPCC's output file.
value() {
    sed -n "s/^$1=//p" "$2" | head -1
}

failed=0
for how in native wisp; do
    dir=$work/$how
    mkdir -p "$dir"
    sed -e 's/^[0-9]* *Ns$/500          Ns/' -e 's/^[0-9]* *Ps$/1            Ps/' \
        -e 's/^[0-9]* *Qs$/2            Qs/' "$example" >"$dir/hpccinf.txt"
    if ! grep -q '^500 *Ns$' "$dir/hpccinf.txt" || ! grep -q '^1 *Ps$' "$dir/hpccinf.txt"; then
        echo "FAIL: $example has no 'Ns' or 'Ps' line to rewrite"
        exit 1
    fi
    launch=("$wisprun")
    [ "$how" = wisp ] || launch+=(--native)
    (cd "$dir" && timeout 300 "${launch[@]}" -n 2 hpcc </dev/null >run.out 2>&1)
    status=$?
    out=$dir/hpccoutf.txt
    if [ ! -f "$out" ]; then
        echo "FAIL: $how: exit status $status, no hpccoutf.txt"
        tail -20 "$dir/run.out"
        failed=1
        continue
    fi
    success=$(value Success "$out")
    ra=$(value MPIRandomAccess_Errors "$out")
    lcg=$(value MPIRandomAccess_LCG_Errors "$out")
    hpl_failed=$(grep -c 'tests completed and failed residual checks' "$out")
    hpl_bad=$(grep -E '^ *[1-9][0-9]* tests completed and failed residual checks' "$out" | wc -l)
    if [ $status = 0 ] && [ "$success" = 1 ] && [ "$ra" = 0 ] && [ "$lcg" = 0 ] &&
        [ "$hpl_failed" -ge 2 ] && [ "$hpl_bad" = 0 ] && ! grep -q FAILED "$out"; then
        echo "ok: $how: Success=1, MPIRandomAccess 0 errors ($(value MPIRandomAccess_GUPs "$out") GUP/s)," \
            "MPIRandomAccess_LCG 0 errors, HPL and PTRANS residuals passed"
    else
        echo "FAIL: $how: exit status $status, Success=$success, MPIRandomAccess_Errors=$ra," \
            "MPIRandomAccess_LCG_Errors=$lcg, residual verdicts $hpl_failed ($hpl_bad failed)"
        grep -E 'FAILED|failed residual|errors in' "$out" | head -10
        tail -20 "$dir/run.out"
        failed=1
    fi
done
exit $failed
