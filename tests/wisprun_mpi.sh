#!/usr/bin/env bash
# wisprun_mpi.sh WISPRUN MPI
# How a build tree's wisprun (one MPI's library) reads the program's MPI
# (tools/wisprun.in), with programs built here by each MPI's mpicc:
# - this MPI's program runs under wisp (the heap serves: WISP_VERBOSE=1);
# - the other MPI's program is refused, exit status 2, in one line that
#   names the program's MPI and this wisp's; with --native too;
# - --mpi: this MPI forces it, the other is refused, a bad name too;
# - a #! script: its interpreter's MPI, named by path or through env;
# - python: its mpi4py's MPI (Debian's python3-mpi4py is Open MPI's; a
#   stand-in package on PYTHONPATH whose extension is linked with MPICH);
# - a program that names no MPI (sh, hostname): this build's library, with
#   a line that says so; a missing program: one line and exit 127;
# - --native on a program linked with libwisp: refused (wisp would run).
set -u
wisprun=$1 mpi=$2
here=$(cd "$(dirname "$0")" && pwd)
case $mpi in
mpich) other=openmpi name=MPICH other_name="Open MPI" ;;
openmpi) other=mpich name="Open MPI" other_name=MPICH ;;
*) echo "wisprun_mpi.sh: unknown MPI '$mpi'" >&2; exit 2 ;;
esac
for tool in mpicc.mpich mpicc.openmpi /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "FAIL: no $tool (make deps installs both MPIs and python3)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; return 1; }

for m in mpich openmpi; do
    "mpicc.$m" "$here/install/hello.c" -o "$tmp/hello_$m" || { echo "FAIL: mpicc.$m"; exit 1; }
done

# launched_with ARGS...: the library and launcher of `wisprun --dry-run ARGS`
# as "<mpi> <mpi>", or its exit status and message.
launched_with() {
    local out status
    out=$("$wisprun" --dry-run "$@" 2>&1)
    status=$?
    [ $status = 0 ] || { echo "exit $status: $out"; return; }
    local lib launcher
    lib=$(grep -o 'libwisp-[a-z]*\.so' <<<"$out" | head -n 1)
    launcher=$(grep -o '^[^ ]*mpiexec\.[a-z]*' <<<"$out")
    lib=${lib#libwisp-} launcher=${launcher##*mpiexec.}
    echo "${lib%.so} $launcher"
}
expect() { # WHAT EXPECTED ARGS...
    local what=$1 want=$2 got
    shift 2
    got=$(launched_with "$@")
    [[ "$got" == $want ]] || fail "$what: expected '$want', got: $got"
}
refused() { # WHAT PATTERN ARGS...: exit 2 and one line matching PATTERN
    local what=$1 pattern=$2 out status
    shift 2
    out=$("$wisprun" --dry-run "$@" 2>&1)
    status=$?
    [ $status = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ "$out" == "wisprun: "$pattern ]] ||
        fail "$what: expected exit 2 and one line 'wisprun: $pattern', got $status: $out"
}

# This MPI's program, run for real.
out=$("$wisprun" --env WISP_VERBOSE=1 -n 2 "$tmp/hello_$mpi" 2>"$tmp/err")
status=$?
[ $status = 0 ] && [ "$out" = "hello: $name, 2 processes: ok" ] || fail "this MPI's program, exit $status: $out"
grep -q '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions' "$tmp/err" ||
    fail "this MPI's program: no line saying that the heap serves:"$'\n'"$(cat "$tmp/err")"
expect "this MPI's program" "$mpi $mpi" -n 2 "$tmp/hello_$mpi"
(cd "$tmp" && PATH=$tmp:$PATH expect "this MPI's program by name on PATH" "$mpi $mpi" "hello_$mpi") || failed=1

# The other MPI's program: refused, naming both.
# In a build tree the line names the other build's wisprun (build/mpich ->
# build/openmpi), not an install.
build=$(cd "$(dirname "$wisprun")" && pwd)
sibling="$(dirname "$build")/$(basename "$build" | sed "s/\(.*\)$mpi/\1$other/")"
if [ -x "$sibling/wisprun" ]; then
    answer="run it with $sibling/wisprun"
else
    answer="build wisp for $other_name into $sibling and run it with $sibling/wisprun"
fi
refused "the other MPI's program" "'$tmp/hello_$other' is an $other_name program ($tmp/hello_$other needs lib*), but this wisp has no library for $other_name, only for $name: $answer" \
    -n 2 "$tmp/hello_$other"
refused "the other MPI's program, --native" "*is an $other_name program*" --native -n 2 "$tmp/hello_$other"
expect "--mpi $mpi" "$mpi $mpi" --mpi "$mpi" -n 2 "$tmp/hello_$mpi"
refused "--mpi $other" "--mpi $other: this wisp has no library for $other_name, only for $name" --mpi "$other" "$tmp/hello_$mpi"
refused "--mpi bogus" "--mpi 'bogus': expected mpich, openmpi or abi" --mpi bogus "$tmp/hello_$mpi"

# Scripts, by their interpreter.
for m in mpich openmpi; do
    printf '#!%s\n' "$tmp/hello_$m" >"$tmp/direct_$m"
    printf '#!/usr/bin/env -S FOO=1 hello_%s --flag\n' "$m" >"$tmp/env_$m"
    chmod +x "$tmp/direct_$m" "$tmp/env_$m"
done
expect "#! this MPI's program" "$mpi $mpi" "$tmp/direct_$mpi"
(PATH=$tmp:$PATH expect "#!/usr/bin/env -S ... this MPI's program" "$mpi $mpi" "$tmp/env_$mpi") || failed=1
refused "#! the other MPI's program" "*is an $other_name program ($tmp/hello_$other needs*" "$tmp/direct_$other"

# Python: Debian's mpi4py (Open MPI's), as the program and as a script's
# interpreter; a stand-in mpi4py whose extension is linked with MPICH.
if /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
    printf '#!/usr/bin/python3\nprint("hi")\n' >"$tmp/app.py"
    chmod +x "$tmp/app.py"
    if [ $mpi = openmpi ]; then
        expect "python3 with Debian's mpi4py" "openmpi openmpi" -n 2 /usr/bin/python3 -m mpi4py "$tmp/app.py"
        expect "a python script, Debian's mpi4py" "openmpi openmpi" "$tmp/app.py"
        # Run for real: mpi4py under wisp, a buffer from the shared heap.
        out=$("$wisprun" --env WISP_VERBOSE=1 -n 2 /usr/bin/python3 -c 'from mpi4py import MPI
c = MPI.COMM_WORLD
s = c.allreduce(c.Get_rank())
if c.Get_rank() == 0: print("mpi4py:", MPI.Get_library_version().split()[0:2], c.Get_size(), s)' 2>"$tmp/err")
        status=$?
        [ $status = 0 ] && [ "$out" = "mpi4py: ['Open', 'MPI'] 2 1" ] || fail "mpi4py under wisp, exit $status: $out"$'\n'"$(cat "$tmp/err")"
        grep -q '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions' "$tmp/err" || fail "mpi4py under wisp: the heap does not serve"
    else
        refused "python3 with Debian's mpi4py (Open MPI's)" "*is an Open MPI program (/usr/lib/python3/dist-packages/mpi4py/MPI.*.so needs libmpi.so.40)*" /usr/bin/python3 "$tmp/app.py"
    fi
else
    fail "no mpi4py for /usr/bin/python3 (apt-get install python3-mpi4py; make deps does)"
fi
mkdir -p "$tmp/fake/mpi4py"
: >"$tmp/fake/mpi4py/__init__.py"
printf '#include <mpi.h>\nint stand_in(void) { int f; return MPI_Initialized(&f); }\n' >"$tmp/stand_in.c"
mpicc.mpich -shared -fPIC "$tmp/stand_in.c" -o "$tmp/fake/mpi4py/MPI.cpython-311-x86_64-linux-gnu.so" ||
    fail "cannot build the stand-in mpi4py"
if [ $mpi = mpich ]; then
    (PYTHONPATH=$tmp/fake expect "python3 with an MPICH mpi4py" "mpich mpich" /usr/bin/python3 -c pass) || failed=1
else
    (PYTHONPATH=$tmp/fake refused "python3 with an MPICH mpi4py" "*is an MPICH program ($tmp/fake/mpi4py/MPI.*.so needs libmpich.so.12)*" /usr/bin/python3 -c pass) || failed=1
fi

# A program that names no MPI: this build's library, the only one, and a
# line that says so (as an install with both MPIs says it cannot tell).
expect "sh (no MPI)" "$mpi $mpi" -n 2 sh -c true
out=$("$wisprun" -n 2 hostname 2>&1 >/dev/null)
status=$?
[ $status = 0 ] && [[ "$out" == "wisprun: 'hostname' names no MPI (no MPI library needed by: "*"): run with $name's launcher and wisp preloaded, the only MPI here (--mpi $mpi says so)" ]] ||
    fail "hostname (no MPI), exit $status: expected one line saying so, got: $out"
out=$("$wisprun" --mpi "$mpi" -n 2 hostname 2>&1 >/dev/null)
[ -z "$out" ] || fail "hostname with --mpi $mpi: $out"
# A missing program: one line of ours and the shell's 127, not the
# launcher's execvp error (--dry-run only prints the command).
expect "a missing program, --dry-run" "$mpi $mpi" -n 2 ./no-such-program
for prog in ./no-such-program no-such-program; do
    out=$("$wisprun" -n 2 "$prog" 2>&1)
    status=$?
    [ $status = 127 ] && [[ "$out" == "wisprun: no such program: '$prog'"* ]] && [ "$(wc -l <<<"$out")" = 1 ] ||
        fail "a missing program ($prog): expected exit 127 and one line, got $status: $out"
done
out=$("$wisprun" -n 1 "$tmp" 2>&1)
status=$?
[ $status = 126 ] && [ "$out" = "wisprun: '$tmp' is not an executable program" ] ||
    fail "a directory as the program: expected exit 126 and one line, got $status: $out"

# --native on a program linked with libwisp: wisp would run anyway; refused.
"mpicc.$mpi" "$here/install/hello.c" -o "$tmp/hello_linked" -L"$build" -Wl,--no-as-needed -l"wisp-$mpi" \
    -Wl,-rpath,"$build" || fail "cannot link hello.c with $build/libwisp-$mpi.so"
refused "--native, a program linked with libwisp" "--native: '$tmp/hello_linked' is linked with wisp ($tmp/hello_linked needs libwisp-$mpi.so.0), which runs in it without being preloaded; a native run needs the program built without -lwisp-$mpi" \
    --native -n 2 "$tmp/hello_linked"
expect "a program linked with libwisp, under wisp" "$mpi $mpi" -n 2 "$tmp/hello_linked"

[ $failed = 1 ] || echo "ok: wisprun reads the program's MPI ($mpi's wisprun)"
exit $failed
