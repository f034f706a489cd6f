#!/usr/bin/env bash
# scalapack.sh WISPRUN MPI
# ScaLAPACK's own test drivers (Debian's scalapack-mpi-test, built for each
# MPI): unmodified Fortran and C programs that reach MPI through BLACS
# (point-to-point with derived datatypes, communicators split into process
# grids, collectives) and check their own results. Each runs natively, under
# wisp and with virtual nodes of one process, on 2 processes (the inputs'
# process grids rewritten to 1x2, 2x1 and 1x1), and every wisp run must give
# the native run's verdicts: the drivers' counts of tests passed, failed and
# skipped, PBLAS's PASSED/FAILED lines, and the BLACS tester's (its
# point-to-point, broadcast and combine tests; not the auxiliary ones, which
# end in BLACS_ABORT and can lose rank 0's last lines natively too).
set -u
wisprun=$1 mpi=$2
bin=/usr/lib/x86_64-linux-gnu/scalapack/$mpi-tests
if [ ! -d "$bin" ]; then
    echo "FAIL: no $bin: install scalapack-mpi-test (make deps does)"
    exit 1
fi
# In the sanitizer build: BLACS's own leaks at exit are not wisp's (other
# tests check wisp's); memory errors still stop a run.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r /usr/share/scalapack/. "$work"

# Process grids of at most 2 processes (2 cores here), the rest of each
# input file as Debian ships it.
python3 - "$work" <<'EOF'
import glob, os, re, sys

def rewrite(path, grid):
    lines, out, i = open(path).read().split("\n"), [], 0
    while i < len(lines):
        line = lines[i]
        if re.search(r"number of (process )?grids", line, re.I):  # and the P and Q lines
            out += grid
            i += 3
        elif re.search(r"Number of (src/dest pairs|dests)", line):
            # One pair, at process (0, 0): valid on every grid.
            out.append("1   " + line.split(None, 1)[1])
            i += 1
            while i < len(lines) and lines[i].split()[-1:] in (["RSRC"], ["CSRC"], ["RDEST"], ["CDEST"]):
                out.append("0   " + lines[i].split()[-1])
                i += 1
        else:
            out.append(line)
            i += 1
    open(path, "w").write("\n".join(out))

work = sys.argv[1]
for path in glob.glob(os.path.join(work, "*.dat")) + glob.glob(os.path.join(work, "PBLAS", "*.dat")):
    rewrite(path, ["3  number of process grids", "1 2 1  values of P", "2 1 1  values of Q"])
for path in glob.glob(os.path.join(work, "BLACS", "*.dat")):
    rewrite(path, ["2  Number of grids", "1 2  NPROW", "2 1  NPCOL"])
# The BLACS tester's auxiliary tests end in BLACS_ABORT, which kills rank 0
# while its last verdicts may still sit in its stdout buffer: left out.
bt = os.path.join(work, "BLACS", "bt.dat")
text = open(bt).read()
assert "Run AUX?" in text
open(bt, "w").write(re.sub(r"'T'(\s+Run AUX\?)", r"'F'\1", text))
EOF

# The verdicts of one run's output, without timings.
verdicts() {
    grep -E 'tests completed and|tests skipped|\*\*\*\*\* .*(PASSED|FAILED)|TESTS: (PASSED|FAILED)|^ *(PASSED|FAILED|SKIPPED) ' "$1" |
        tr -s ' ' | sort
}

failed=0
# Driver (relative to $bin), the folder it reads its input from.
while read -r driver dir; do
    for how in native wisp vnode1; do
        case $how in
        native) launch=("$wisprun" --native) ;;
        wisp) launch=("$wisprun") ;;
        vnode1) launch=("$wisprun" --env WISP_VNODE_SIZE=1) ;;
        esac
        (cd "$work/$dir" && timeout 120 "${launch[@]}" -n 2 "$bin/$driver" </dev/null >"$work/$how.out" 2>&1)
        echo $? >"$work/$how.status"
        verdicts "$work/$how.out" >"$work/$how.verdicts"
    done
    count=$(wc -l <"$work/native.verdicts")
    if [ "$count" -eq 0 ] || grep -q FAILED "$work/native.verdicts"; then
        echo "FAIL: $driver: no clean verdict natively (exit status $(cat "$work/native.status"))"
        tail -5 "$work/native.out"
        failed=1
        continue
    fi
    for how in wisp vnode1; do
        if cmp -s "$work/native.verdicts" "$work/$how.verdicts" &&
            cmp -s "$work/native.status" "$work/$how.status"; then
            echo "ok: $driver under $how: $count verdict lines, as natively"
        else
            echo "FAIL: $driver under $how (exit status $(cat "$work/$how.status"), natively $(cat "$work/native.status")):"
            diff "$work/native.verdicts" "$work/$how.verdicts" | head -10
            tail -5 "$work/$how.out"
            failed=1
        fi
    done
done <<'EOF'
xdlu .
xzlu .
xdqr .
xdls .
xdinv .
xdhrd .
xdtrd .
xdbrd .
xdnep .
xddblu .
xdgblu .
xdptllt .
PBLAS/dpb1tst PBLAS
PBLAS/dpb2tst PBLAS
PBLAS/zpb3tst PBLAS
xCbtest BLACS
xFbtest BLACS
EOF
exit $failed
