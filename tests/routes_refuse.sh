#!/usr/bin/env bash
# routes_refuse.sh PYTHON ROOT
# The generator must refuse route tables that leave a function of an owned
# family unrouted, or name a function twice, or name none: here the route of
# MPI_Isendrecv is dropped, MPI_Send routed twice and a made-up function
# routed, or a lend marked with a group, each in a copy of the tables, and
# each must fail with its reason.
# (generated.wrappers_up_to_date checks that the tables as committed pass.)
set -u
python=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
others=$(ls "$root"/src/*/routes.def | grep -v /p2p/)
status=0

expect() { # expect NAME MESSAGE: generate from $tmp/p2p.def, must fail with MESSAGE
    out=$("$python" "$root/tools/gen_wrappers.py" --check "$root/src" --tables "$tmp/p2p.def" \
        $others 2>&1)
    if [ $? -ne 0 ] && grep -qF -- "$2" <<<"$out"; then
        echo "ok: $1"
    else
        echo "FAILED: $1: expected an error naming '$2', got:"
        echo "$out" | head -5
        status=1
    fi
}

# Drop MPI_Isendrecv and its continuation lines.
awk '/^MPI_Isendrecv[[:space:]]/ {skip = 1; next} skip && /^[[:space:]]/ {next} {skip = 0; print}' \
    "$root/src/p2p/routes.def" >"$tmp/p2p.def"
expect unrouted "MPI_Isendrecv is of a family wisp owns but no routes.def routes it"

{ cat "$root/src/p2p/routes.def"; echo "MPI_Send pass twice"; } >"$tmp/p2p.def"
expect twice "MPI_Send is routed twice"

{ cat "$root/src/p2p/routes.def"; echo "MPI_Sned call wisp_p2p_send()"; } >"$tmp/p2p.def"
expect unknown "MPI_Sned is no MPI function"

# A group's function is the MPI's own until the group begins: only a call
# route may have one (a lend lends on every call).
sed 's/^MPI_File_open       lend$/MPI_File_open       until served lend/' \
    "$root/src/p2p/routes.def" >"$tmp/p2p.def"
expect until "MPI_File_open: expected until GROUP call EXPR"

exit $status
