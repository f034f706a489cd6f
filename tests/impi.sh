#!/usr/bin/env bash
# impi.sh IMPI LIBWISP WISPRUN
# libwisp-mpich (this build, on Debian's MPICH 4.0.2) over Intel MPI, whose
# libmpi.so.12 has MPICH's ABI: PyPI's impi-rt and impi-devel in the
# virtual environment IMPI (`make deps-impi`; skipped, 77, without it).
# Programs built by Intel MPI's mpicc (and mpif90, `use mpi`), 2 processes,
# I_MPI_FABRICS=shm:
#   - a ping-pong natively (Intel's mpiexec) and with libwisp in LD_PRELOAD
#     (Intel's mpiexec -genv): the same output, the messages copied through
#     wisp's shared heap (WISP_STATS: single copy), WISP_VERBOSE=1 names
#     Intel MPI; the same with libwisp's libmpich.so.12 a link to Intel's
#     libmpi.so.12 (a machine without MPICH);
#   - wisprun: says the program is Intel MPI's (--verbose), preloads
#     LIBWISP and launches with Intel's mpiexec; the same output, the heap
#     serving; shm_copies (wisp's own counters of copies through the heap);
#     one-sided epochs with a ghost process serving the windows
#     (WISP_GHOSTS=1, WISP_GHOST_WINDOWS=on), and with auto, which leaves
#     them to Intel MPI on one machine (src/ghost/target_help.c); the
#     Fortran ping-pong, its sends counted by wisp;
#   - MPI-4.1's MPI_Request_get_status_any/_all/_some and buffer flushes,
#     which Intel MPI has and MPICH 4.0.2 has not: the transparency
#     programs request_get_status and buffer_flush give the same output
#     under wisp as natively (src/wrap/newer.c; before, the get_status
#     calls reached Intel MPI with wisp's requests: "Invalid MPI_Request");
#   - the two behaviours the build keys on MPICH's version
#     (src/core/quirks.c, mpi_exit.c) are MPICH 4's over Intel MPI: a user
#     error handler's error is returned, and a rank's _exit after
#     MPI_Finalize ends no other rank.
set -u
impi=$1 lib=$2 wisprun=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$impi/bin/mpicc" ] || [ ! -e "$impi/lib/libmpi.so.12" ]; then
    echo "SKIP: no Intel MPI in $impi (make deps-impi installs impi-rt and impi-devel from PyPI there)"
    exit 77
fi
impi=$(cd "$impi" && pwd) # as wisprun names its mpiexec
export I_MPI_ROOT=$impi I_MPI_FABRICS=shm
export LD_LIBRARY_PATH=$impi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset WISP_STATS WISP_VERBOSE WISP_GHOSTS
mpiexec=$impi/bin/mpiexec
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

cc() { # NAME SOURCE [FLAGS...]: Intel MPI's mpicc
    local name=$1 src=$2
    shift 2
    "$impi/bin/mpicc" -O1 -std=gnu11 "$@" "$src" -o "$tmp/$name" -ldl -lpthread 2>"$tmp/cc.err" ||
        { echo "FAIL: Intel MPI's mpicc $src: $(head -3 "$tmp/cc.err")"; exit 1; }
}
cc pingpong "$here/mpi/pingpong.c"
cc shm_copies "$here/mpi/shm_copies.c" -include "$here/preloaded.h" -I"$here" -I"$here/../include"
cc rma_epochs "$here/mpi/rma_epochs.c" -include "$here/preloaded.h" -I"$here" -I"$here/../include"
cc request_get_status "$here/transparency/request_get_status.c" -I"$here/transparency"
cc buffer_flush "$here/transparency/buffer_flush.c" -I"$here/transparency"
cc handler_rc "$here/mpi/quirk_handler_rc.c"
cc exit_after_finalize "$here/mpi/quirk_exit_after_finalize.c"
run() { timeout 120 "$@" 2>&1; }
# single_copies OUTPUT: the single-copy messages that WISP_STATS counted
single_copies() { grep -o '[0-9]* single copy' <<<"$1" | awk '{n += $1} END {print n + 0}'; }

native=$(run "$mpiexec" -n 2 "$tmp/pingpong") || fail "natively: $native"
echo "native: $native"
[[ "$native" == "pingpong: ok,"* ]] || fail "natively, no 'pingpong: ok': $native"

out=$(run "$mpiexec" -n 2 -genv LD_PRELOAD "$lib" -genv WISP_STATS 1 -genv WISP_VERBOSE 1 "$tmp/pingpong") ||
    fail "preloaded: $out"
[ "$(grep '^pingpong' <<<"$out")" = "$native" ] || fail "preloaded, not the native output: $out"
grep -q "the MPI is Intel(R) MPI Library" <<<"$out" || fail "preloaded, WISP_VERBOSE=1 does not name Intel MPI: $out"
n=$(single_copies "$out")
[ "$n" -gt 0 ] || fail "preloaded, no message copied once through the shared heap: $out"
echo "ok: preloaded over Intel MPI, the same output; $n messages copied once through the heap"

# Without MPICH on the machine: libwisp-mpich's own NEEDED libmpich.so.12
# found as Intel MPI's libmpi.so.12 (a link to it first in the path), which
# the loader has already mapped: one MPI library in the process.
mkdir "$tmp/alias" && ln -s "$impi/lib/libmpi.so.12" "$tmp/alias/libmpich.so.12"
out=$(LD_LIBRARY_PATH=$tmp/alias:$LD_LIBRARY_PATH run "$mpiexec" -n 2 -genv LD_PRELOAD "$lib" -genv WISP_STATS 1 "$tmp/pingpong") ||
    fail "preloaded, libmpich.so.12 a link to Intel MPI's libmpi.so.12: $out"
[ "$(grep '^pingpong' <<<"$out")" = "$native" ] || fail "preloaded with libmpich.so.12 a link to Intel MPI's: not the native output: $out"
[ "$(single_copies "$out")" -gt 0 ] || fail "preloaded with libmpich.so.12 a link to Intel MPI's: no single copy: $out"
echo "ok: preloaded with libmpich.so.12 a link to Intel MPI's libmpi.so.12 (no MPICH needed)"

out=$(run "$wisprun" --verbose --env WISP_STATS=1 -n 2 "$tmp/pingpong") || fail "wisprun: $out"
[ "$(grep '^pingpong' <<<"$out")" = "$native" ] || fail "wisprun, not the native output: $out"
grep -q "is a program of Intel MPI .*: with ${lib%.so}.*, launched by $impi/bin/mpiexec\$" <<<"$out" ||
    fail "wisprun --verbose does not say Intel MPI, $lib and $impi/bin/mpiexec: $out"
n=$(single_copies "$out")
[ "$n" -gt 0 ] || fail "wisprun, no message copied once through the shared heap: $out"
echo "ok: wisprun over Intel MPI: $(grep -o "is a program of Intel MPI" <<<"$out"), $n messages copied once"

out=$(run "$wisprun" -n 2 "$tmp/shm_copies") || fail "wisprun shm_copies: $out"
out=$(run "$wisprun" --env WISP_GHOSTS=1 --env WISP_GHOST_WINDOWS=on --env WISP_VERBOSE=1 -n 3 "$tmp/rma_epochs") ||
    fail "wisprun rma_epochs with a ghost: $out"
grep -q "1 ghost per node" <<<"$out" || fail "rma_epochs: no ghost: $out"
out=$(run "$wisprun" --env WISP_GHOSTS=1 --env WISP_VERBOSE=1 -n 3 "$tmp/rma_epochs") ||
    fail "wisprun rma_epochs with a ghost, WISP_GHOST_WINDOWS=auto: $out"
grep -q "ghost windows not served (WISP_GHOST_WINDOWS=auto: Intel MPI applies" <<<"$out" ||
    fail "rma_epochs, auto: the ghost serves Intel MPI's windows on one machine: $out"
echo "ok: shm_copies, and rma_epochs with a ghost serving the windows (on) and leaving them to Intel MPI (auto)"

fortran="" gf=""
command -v gfortran >/dev/null && gf=$(gfortran -dumpversion) gf=${gf%%.*}
# The wheel's modules per gfortran version (its mpif90 looks in another
# folder): the newest whose major version is not above gfortran's.
for v in $(ls "$impi/include/mpi/gfortran" 2>/dev/null | sort -V); do
    [ -n "$gf" ] && [ "${v%%.*}" -le "$gf" ] && [ -e "$impi/include/mpi/gfortran/$v/mpi.mod" ] &&
        fortran=$impi/include/mpi/gfortran/$v
done
if [ -n "$fortran" ] && (cd "$tmp" && "$impi/bin/mpif90" -I"$fortran" "$here/fortran/pingpong.f90" \
    -o "$tmp/fpingpong" >"$tmp/fc.err" 2>&1); then
    fnative=$(run "$mpiexec" -n 2 "$tmp/fpingpong") || fail "Fortran natively: $fnative"
    out=$(run "$wisprun" --env WISP_STATS=1 -n 2 "$tmp/fpingpong") || fail "Fortran under wisp: $out"
    [ "$(grep -v '^wisp' <<<"$out")" = "$fnative" ] || fail "Fortran: '$out', natively '$fnative'"
    grep -q "MPI_Send 6x" <<<"$out" || fail "Fortran: wisp did not count the sends: $out"
    echo "ok: Fortran (use mpi, modules of $fortran) the same under wisp, its sends wisp's"
else
    echo "Fortran not checked: no gfortran module of the wheel's that gfortran ${gf:-(none)} reads ($(head -2 "$tmp/fc.err" 2>/dev/null))"
fi

for prog in request_get_status buffer_flush; do
    native=$(run "$wisprun" --native -n 2 "$tmp/$prog") || fail "$prog natively: $native"
    out=$(run "$wisprun" -n 2 "$tmp/$prog") || fail "$prog under wisp: $out"
    [ "$out" = "$native" ] || fail "$prog: under wisp '$out', natively '$native'"
    echo "ok: $prog (MPI-4.1, not in MPICH 4.0.2's mpi.h): the same under wisp, $(tail -n 1 <<<"$native")"
done

native=$(run "$mpiexec" -n 2 "$tmp/handler_rc") || fail "handler_rc natively: $native"
under=$(run "$wisprun" -n 2 "$tmp/handler_rc") || fail "handler_rc under wisp: $under"
[[ "$native" == *"the call returned MPI_ERR_RANK" ]] ||
    fail "Intel MPI natively returns another code after a user handler (MPICH 5's quirk?): $native"
[ "$under" = "$native" ] || fail "handler_rc: under wisp '$under', natively '$native'"
out=$(run "$mpiexec" -n 3 "$tmp/exit_after_finalize")
ended=$(grep -c "rank [01] ended after the _exit of rank 2$" <<<"$out")
[ "$ended" = 2 ] || fail "Intel MPI: after a rank's _exit after MPI_Finalize, $ended of 2 ranks ended (MPICH 5's quirk? src/core/mpi_exit.c): $out"
echo "ok: Intel MPI has MPICH 4's behaviours that wisp keys on (handler's error returned, _exit after MPI_Finalize harmless)"
exit $failed
