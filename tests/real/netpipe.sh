#!/usr/bin/env bash
# netpipe.sh WISPRUN NETPIPE-BINARY
# NetPIPE, an unmodified MPI program from Debian (netpipe-mpich2 /
# netpipe-openmpi), in its integrity-check mode: every message of 1 B to
# 256 KiB is sent, received and verified, with plain and asynchronous
# (preposted) receives. Its report must be identical natively and under wisp.
# (Both ranks print the same lines to one stdout, so lines are compared
# sorted.) Two modes hang without wisp too, so they are left out: -2 (both
# ranks MPI_Send at once, relying on buffering) on Open MPI, and -z
# (MPI_ANY_SOURCE) on MPICH 4.0.2.
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
        (cd "$work" && "${launch[@]}" -n 2 "$netpipe" "${flags[@]}" -o "$how$mode.report" \
            2>&1 | grep -- '-->' | sort >"$how$mode.lines")
        [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL: $how $mode: NetPIPE failed"; failed=1; }
    done
    passed=$(grep -c 'Integrity check passed' "$work/wisp$mode.lines")
    if cmp -s "$work/native$mode.lines" "$work/wisp$mode.lines" &&
        cmp -s "$work/native$mode.report" "$work/wisp$mode.report" && [ "$passed" -gt 20 ] &&
        ! grep -qi fail "$work/wisp$mode.lines"; then
        echo "ok: NetPIPE ${flags[*]}: $passed integrity checks passed, identical to native"
    else
        echo "FAIL: NetPIPE ${flags[*]} differs from native or failed its checks"
        diff "$work/native$mode.lines" "$work/wisp$mode.lines" | head -20
        failed=1
    fi
done
exit $failed
