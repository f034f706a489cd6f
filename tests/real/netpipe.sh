#!/usr/bin/env bash
# netpipe.sh WISPRUN NETPIPE-BINARY
# NetPIPE, an unmodified MPI program from Debian (netpipe-mpich2 /
# netpipe-openmpi), in its integrity-check mode: every message of 1 B to
# 256 KiB is sent, received and verified, with plain and asynchronous
# (preposted) receives. Its report file must be identical natively and under
# wisp, and so must the number of checks that passed on stdout. Both ranks
# print to one stdout: stdbuf makes each line one write, so lines stay whole,
# but their order between ranks varies, so only the count is compared. Two
# modes hang without wisp too, so they are left out: -2 (both ranks MPI_Send
# at once, relying on buffering) on Open MPI, and -z (MPI_ANY_SOURCE) on
# MPICH 4.0.2.
set -u
wisprun=$1 netpipe=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for mode in plain -a; do
    flags=(-i -u 262144 -n 3)
    [ "$mode" = plain ] || flags+=("$mode")
    for how in native wisp; do
        launch=("$wisprun")
        [ "$how" = wisp ] || launch+=(--native)
        (cd "$work" && "${launch[@]}" -n 2 stdbuf -oL "$netpipe" "${flags[@]}" -o "$how$mode.report" \
            >"$how$mode.out" 2>&1) || { echo "FAIL: $how $mode: NetPIPE failed"; failed=1; }
    done
    native=$(grep -o 'Integrity check passed' "$work/native$mode.out" | wc -l)
    passed=$(grep -o 'Integrity check passed' "$work/wisp$mode.out" | wc -l)
    if cmp -s "$work/native$mode.report" "$work/wisp$mode.report" && [ "$passed" = "$native" ] &&
        [ "$passed" -gt 20 ] && ! grep -qi 'check failed' "$work/wisp$mode.out"; then
        echo "ok: NetPIPE ${flags[*]}: $passed integrity checks passed, as natively"
    else
        echo "FAIL: NetPIPE ${flags[*]}: $passed checks passed under wisp, $native natively"
        diff "$work/native$mode.report" "$work/wisp$mode.report" | head -10
        failed=1
    fi
done
exit $failed
