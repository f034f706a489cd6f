#!/usr/bin/env bash
# wrong_mpi.sh MPI LIBWISP: a libwisp built for MPI (this build's) in
# programs of the other MPI never crashes (issue 41, part 2;
# src/core/mpi_check.c). Programs from tests/wrong_mpi/, built here with
# each MPI's mpicc, 2 processes each:
# - restart: the other MPI's program, its plain mpiexec, libwisp in
#   LD_PRELOAD: the native run's output plus one line that names both MPIs
#   and the right library, exit status 0;
# - linked: the same program linked with libwisp: no restart can help; one
#   line and exit status 1 from MPI_Init, no crash;
# - dlopen: a program without MPI that loads the other MPI later (as python
#   loads mpi4py: a library linked with it; or its library itself, then
#   MPI_Init found by dlsym; python with mpi4py where it is installed): one
#   line and exit status 1 from MPI_Init, no crash;
# - what must be left alone, silently: this MPI's program and this MPI
#   loaded by dlopen (wisp serves; mpi4py too), a program that needs both
#   MPIs, and processes without MPI (bash, its children, python).
set -u
mpi=$1 lib=$2
here=$(cd "$(dirname "$0")" && pwd)
src=$here/wrong_mpi
case $mpi in
mpich) other=openmpi mpi_name=MPICH other_name="Open MPI" other_lib=libmpi.so.40 own_l=mpich ;;
openmpi) other=mpich mpi_name="Open MPI" other_name=MPICH other_lib=libmpich.so.12 own_l=mpi ;;
*) echo "wrong_mpi.sh: unknown MPI '$mpi'" >&2; exit 2 ;;
esac
for tool in "mpicc.$other" "mpiexec.$other" "mpicc.$mpi" cc python3; do
    command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

build() { "$@" || { echo "FAIL: cannot build: $*"; exit 1; }; }
build "mpicc.$other" -o "$tmp/prog" "$src/program.c"
build "mpicc.$other" -o "$tmp/linked" "$src/program.c" "$lib" -Wl,-rpath,"$(dirname "$lib")"
build "mpicc.$other" -shared -fPIC -DPLUGIN -o "$tmp/plugin.so" "$src/program.c"
build "mpicc.$mpi" -o "$tmp/own" "$src/program.c"
build "mpicc.$mpi" -shared -fPIC -DPLUGIN -o "$tmp/own_plugin.so" "$src/program.c"
build cc -o "$tmp/host" "$src/host.c" -ldl
# Both MPIs' libraries needed by the program itself, its own first (the
# other one first, it crashes natively: the other's MPI_Comm_rank is found).
other_so=$(ldconfig -p | awk -v n="$other_lib" '$1 == n {print $NF; exit}')
[ -z "$other_so" ] || build "mpicc.$mpi" -o "$tmp/both" "$src/program.c" "-l$own_l" \
    -Wl,--no-as-needed "$other_so"

# MPI's mpiexec, 2 processes, without and with libwisp in LD_PRELOAD.
native() {
    local m=$1 cmd
    shift
    cmd=("mpiexec.$m" -n 2)
    if [ "$m" = openmpi ]; then
        cmd+=(--oversubscribe)
        [ "$(id -u)" != 0 ] || cmd+=(--allow-run-as-root)
    fi
    env -u LD_PRELOAD -u GLIBC_TUNABLES "${cmd[@]}" "$@"
}
preload() {
    local m=$1
    shift
    bash "$here/mpiexec_preload.sh" "$m" 2 "$lib" -- "$@"
}
show() { sed 's/^/    /' <<<"$1"; }
wisp_lines() { grep -c '^wisp' <<<"$1"; }
no_crash() {
    ! grep -Eiq 'segmentation|signal 11|invalid communicator|core dumped' <<<"$2" ||
        fail "$1: a crash or an MPI error"
}

# restart: the native run's output plus one line, exit status 0.
base=$(native "$other" "$tmp/prog" 2>&1)
base_rc=$?
out=$(preload "$other" "$tmp/prog" 2>&1)
rc=$?
echo "== restart: native (exit $base_rc), then with libwisp (exit $rc)"
show "$base"
show "$out"
[ $base_rc = 0 ] || fail "restart: the native run failed"
[ $rc = 0 ] || fail "restart: exit status $rc under libwisp"
extra=$(diff <(sort <<<"$base") <(sort <<<"$out") | grep '^[<>]')
line="^> wisp: this program uses $other_name \\($other_lib\\), but [^ ]*libwisp[^ ]* was built for $mpi_name: running it without wisp; use [^;]* \\(wisprun picks it\\)\$"
if [ "$(grep -c . <<<"$extra")" != 1 ] || ! grep -Eq "$line" <<<"$extra"; then
    fail "restart: the output is not the native one plus the one line; the difference:"
    show "$extra"
fi
! grep -q "use the libwisp built for" <<<"$extra" ||
    echo "note: no sibling library found beside $lib; the line names none"
no_crash restart "$out"

# linked and dlopen: no restart can help; one line, exit status 1.
stopped() { # name expected-reason output status
    echo "== $1 (exit $4)"
    show "$3"
    [ "$4" != 0 ] || fail "$1: exit status 0"
    [ "$(wisp_lines "$3")" = 1 ] || fail "$1: not one line from wisp"
    grep -Eq "^wisp: this program uses $other_name \\($other_lib\\), but [^ ]* was built for $mpi_name and cannot step aside, as $2.*: stopping in MPI_Init; use .* \\(wisprun picks it\\)\$" <<<"$3" ||
        fail "$1: not the line expected"
    no_crash "$1" "$3"
}
out=$(native "$other" "$tmp/linked" 2>&1)
stopped linked "it is not in LD_PRELOAD" "$out" $?
out=$(preload "$other" "$tmp/host" "$tmp/plugin.so" 2>&1)
stopped dlopen "the program loaded that MPI after libwisp" "$out" $?
if [ -n "$other_so" ]; then # the MPI's library itself, MPI_Init found by dlsym
    native "$other" "$tmp/host" --global "$other_lib" >/dev/null 2>&1 ||
        fail "dlopen, global: the native run failed"
    out=$(preload "$other" "$tmp/host" --global "$other_lib" 2>&1)
    stopped "dlopen, global" "the program loaded that MPI after libwisp" "$out" $?
fi

# python with mpi4py (Debian's, built for Open MPI), where it is installed:
# for the other MPI stopped as above; for this one served, as natively.
py=/usr/bin/python3
mpi4py=$("$py" -c 'import mpi4py, glob, os; print(*glob.glob(os.path.dirname(mpi4py.__file__) + "/MPI.*.so"))' 2>/dev/null)
# (one write per line: with PYTHONUNBUFFERED print's text and newline are
# two writes, and two ranks' lines may interleave)
script='import sys; from mpi4py import MPI; c = MPI.COMM_WORLD; sys.stdout.write(f"rank {c.rank} of {c.size}: sum {c.allreduce(c.rank)}\n")'
if [ -z "$mpi4py" ]; then
    echo "note: no mpi4py for $py; its case is left out"
elif readelf -d "$mpi4py" | grep -q "NEEDED.*\[$other_lib\]"; then
    out=$(preload "$other" "$py" -c "$script" 2>&1)
    stopped "python with mpi4py for $other_name" "the program loaded that MPI after libwisp" "$out" $?
else
    base=$(native "$mpi" "$py" -c "$script" 2>&1)
    out=$(preload "$mpi" "$py" -c "$script" 2>&1)
    rc=$?
    echo "== python with mpi4py for $mpi_name (exit $rc)"
    show "$out"
    if [ $rc != 0 ] || [ "$(sort <<<"$out")" != "$(sort <<<"$base")" ]; then
        fail "python with mpi4py for $mpi_name: not the native run's output and status 0; natively:"
        show "$base"
    fi
fi

# Left alone: wisp serves this MPI's programs, also when it is dlopened.
served() { # name output status
    echo "== $1 (exit $3)"
    show "$2"
    [ "$3" = 0 ] || fail "$1: exit status $3"
    [ "$(wisp_lines "$2")" = 0 ] || fail "$1: a line from wisp"
    [ "$(grep -c 'MPI_Comm_rank from libwisp' <<<"$2")" = 2 ] || fail "$1: wisp does not serve"
}
out=$(preload "$mpi" "$tmp/own" 2>&1)
served own "$out" $?
out=$(preload "$mpi" "$tmp/host" "$tmp/own_plugin.so" 2>&1)
served "own, dlopen" "$out" $?
if [ -n "$other_so" ]; then
    native "$mpi" "$tmp/both" >/dev/null 2>&1 || fail "both MPIs needed: the native run failed"
    out=$(preload "$mpi" "$tmp/both" 2>&1)
    served "both MPIs needed" "$out" $?
fi

# Processes without MPI, their forked and executed children: untouched.
out=$(LD_PRELOAD=$lib bash -c 'echo a; (echo b); sh -c "echo c"; python3 -c "print(\"d\")"' 2>"$tmp/err")
rc=$?
echo "== no MPI (exit $rc)"
show "$out"
show "$(cat "$tmp/err")"
[ $rc = 0 ] && [ "$out" = "$(printf 'a\nb\nc\nd')" ] && [ ! -s "$tmp/err" ] ||
    fail "no MPI: not the output of bash alone"
[ $failed = 1 ] || echo "ok"
exit $failed
