#!/usr/bin/env bash
# mpi4py_suite.sh WISPRUN MPI PRELOAD
# mpi4py's own test suite (test/ of the sdist of the mpi4py installed in the
# MPI's virtual environment: the venv of the build's mpiexec, make
# deps-mpi4py) on 2 processes: natively (the venv's mpiexec), under wisp
# preloaded (the same mpiexec with PRELOAD in LD_PRELOAD) and under
# WISPRUN. Every test's outcome on every rank (pass, fail, error, skip,
# expected failure, unexpected success; tests/real/mpi4py_results.py) under
# wisp must equal the native run's, and so must the exit status. A test
# that differs is run again alone, natively and in that setting; if the two
# agree then it is reported FLAKY and does not fail the run.
# The sdist is fetched with pip download into the venv (mpi4py-src/), never
# committed; a venv without mpi4py skips (77) and says how to install it.
# The environment narrows or widens it:
#   MPI4PY_SUITE_INCLUDE=REGEX  only the test files whose names match (main.py's
#                               -i: `cco` for the collectives, test_cco_*.py)
#   MPI4PY_SUITE_NP=N           N processes instead of 2
#   MPI4PY_SUITE_ENV="K=V ..."  wisp's settings in both wisp runs (e.g.
#                               WISP_VNODE_SIZE=1); the native run has none
#   MPI4PY_SUITE_SETTINGS=...   the wisp runs, of "preload wisprun" (both)
#   MPI4PY_SUITE_LIMIT=S        seconds for one job (1500)
set -u
wisprun=$1 mpi=$2 preload=$3
here=$(cd "$(dirname "$0")" && pwd)
launcher=TEST_MPIEXEC_$mpi
mpiexec=${!launcher:?"the build's mpiexec"}
venv=$(cd "$(dirname "$mpiexec")/.." && pwd)
python=$venv/bin/python
np=${MPI4PY_SUITE_NP:-2} limit=${MPI4PY_SUITE_LIMIT:-1500}
read -r -a wisp_env <<<"${MPI4PY_SUITE_ENV:-}"
read -r -a settings <<<"${MPI4PY_SUITE_SETTINGS:-preload wisprun}"
for s in "${settings[@]}"; do
    [[ $s == preload || $s == wisprun ]] || { echo "FAIL: MPI4PY_SUITE_SETTINGS: '$s' is neither preload nor wisprun"; exit 1; }
done
select=()
[ -z "${MPI4PY_SUITE_INCLUDE:-}" ] || select=(-i "$MPI4PY_SUITE_INCLUDE")
# The standard ABI's build: the mpi4py built for the ABI (mpi4py-abi/ of the
# venv, make deps-mpi4py), first in every process's path (the launchers
# pass the environment on).
libmpi=libmpi
if [ "$mpi" = abi ]; then
    if [ ! -d "$venv/mpi4py-abi/mpi4py" ]; then
        echo "SKIP: no mpi4py built for the MPI-5 ABI in $venv/mpi4py-abi (make deps-mpi4py builds it)"
        exit 77
    fi
    export PYTHONPATH=$venv/mpi4py-abi${PYTHONPATH:+:$PYTHONPATH}
    libmpi=libmpi_abi
fi

if [ ! -x "$python" ]; then
    echo "SKIP: no python beside $mpiexec: not an MPI from PyPI in a virtual environment"
    exit 77
fi
if ! version=$(env -u LD_PRELOAD "$python" -c 'import mpi4py; print(mpi4py.__version__)' 2>/dev/null); then
    echo "SKIP: no mpi4py in $venv (make deps-mpi4py installs it, built with the venv's mpicc)"
    exit 77
fi
# The mpi4py must be this MPI's: its extension's libmpi (libmpi_abi for the
# standard ABI) from the venv.
ext=$(env -u LD_PRELOAD "$python" -c 'import glob, os, mpi4py
print(glob.glob(os.path.join(os.path.dirname(mpi4py.__file__), "MPI.*so"))[0])')
if ! ldd "$ext" | grep -q "$libmpi\.so.* => $venv/"; then
    echo "FAIL: $ext is not linked with the libmpi of $venv:"
    ldd "$ext" | grep libmpi
    exit 1
fi

src=$venv/mpi4py-src
testdir=$src/mpi4py-$version/test
if [ ! -f "$testdir/main.py" ]; then
    mkdir -p "$src"
    if ! env -u LD_PRELOAD nice -n 19 "$venv/bin/pip" download --quiet --no-deps --no-binary :all: \
            --retries 2 --timeout 60 -d "$src" "mpi4py==$version"; then
        echo "FAIL: the sdist of mpi4py $version not fetched from PyPI (is it reachable?)"
        exit 1
    fi
    tar -xzf "$src/mpi4py-$version.tar.gz" -C "$src" || exit 1
fi
echo "mpi4py $version over $venv ($ext), tests from $testdir" \
    "(${MPI4PY_SUITE_INCLUDE:+files matching $MPI4PY_SUITE_INCLUDE, }$np processes${wisp_env[*]:+, wisp with ${wisp_env[*]}})"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# run SETTING OUT [test names...]: one job of the suite (or of the named
# tests) in SETTING; its exit status in OUT.rc, its output in OUT.log.
run() {
    local setting=$1 out=$2
    shift 2
    local cmd kv
    case $setting in
    native) cmd=(bash "$here/../mpiexec_preload.sh" "$mpi" $np "" --) ;;
    preload) cmd=(bash "$here/../mpiexec_preload.sh" "$mpi" $np "$preload" "${wisp_env[@]}" --) ;;
    wisprun)
        cmd=("$wisprun")
        for kv in "${wisp_env[@]}"; do cmd+=(--env "$kv"); done
        cmd+=(-n $np)
        ;;
    esac
    rm -f "$out".[0-9]*
    timeout -k 10 "$limit" "${cmd[@]}" "$python" "$here/mpi4py_results.py" "$testdir" "$out" \
        "${select[@]}" "$@" >"$out.log" 2>&1
    echo $? >"$out.rc"
}

# counts OUT: one line of the job's counts, every rank together.
counts() {
    local r
    for r in $(seq 0 $((np - 1))); do cat "$1.$r" 2>/dev/null; done |
        awk -v rc="$(cat "$1.rc")" '{n[$1]++; t++} END {
            printf "%d outcomes: %d pass, %d fail, %d error, %d skip, %d xfail, %d xpass; exit status %s\n",
                t, n["pass"], n["fail"], n["error"], n["skip"], n["xfail"], n["xpass"], rc}'
}

# differ A B: the test ids whose outcome differs between jobs A and B, on
# any rank (empty when they agree), and whether the exit statuses agree.
differ() {
    local r
    for r in $(seq 0 $((np - 1))); do
        diff <(sort "$1.$r" 2>/dev/null) <(sort "$2.$r" 2>/dev/null) | sed -n 's/^[<>] [a-z]* //p'
    done | sed 's/ .*//' | sort -u
}

run native native
echo "native:  $(counts native)"
for r in $(seq 0 $((np - 1))); do
    if [ ! -s native.$r ]; then
        echo "FAIL: the native run wrote no outcome on rank $r:"
        tail -20 native.log
        exit 1
    fi
done
if ! grep -q '^pass ' native.0; then
    echo "FAIL: no test passed natively"
    tail -20 native.log
    exit 1
fi

status=0
for setting in "${settings[@]}"; do
    run $setting $setting
    echo "$setting: $(counts $setting)"
    for r in $(seq 0 $((np - 1))); do
        lib=$(cat $setting.$r.lib 2>/dev/null)
        if [ "$lib" != libwisp ]; then
            echo "FAIL: $setting: rank $r ran without libwisp (${lib:-no outcome written})"
            status=1
        fi
    done
    mapfile -t ids < <(differ native $setting)
    if [ ${#ids[@]} -eq 0 ] && [ "$(cat native.rc)" = "$(cat $setting.rc)" ]; then
        echo "$setting: every outcome equals native"
        continue
    fi
    if [ ${#ids[@]} -eq 0 ]; then
        echo "FAIL: $setting: exit status $(cat $setting.rc), natively $(cat native.rc)"
        tail -30 $setting.log
        status=1
        continue
    fi
    echo "$setting: ${#ids[@]} tests differ from native (the first 40 lines):"
    for r in $(seq 0 $((np - 1))); do
        diff <(sort native.$r 2>/dev/null) <(sort $setting.$r 2>/dev/null) | grep '^[<>]' |
            sed "s/^</  rank $r native: /; s/^>/  rank $r $setting: /"
    done | head -40
    echo "--- $setting's output (end) ---"
    tail -15 $setting.log
    # A job that stopped early loses every later outcome: no rerun of those.
    if [ ${#ids[@]} -gt 20 ]; then
        echo "FAIL: $setting: ${#ids[@]} tests differ (exit status $(cat $setting.rc), natively $(cat native.rc))"
        status=1
        continue
    fi
    # Again, those tests alone: natively and in the setting.
    run native native-again "${ids[@]}"
    run $setting $setting-again "${ids[@]}"
    mapfile -t still < <(differ native-again $setting-again)
    if [ ${#still[@]} -eq 0 ] && [ -s native-again.0 ]; then
        echo "$setting: FLAKY: alone, each of them gives the native outcome: ${ids[*]}"
    else
        echo "FAIL: $setting: alone still differing from native: ${still[*]:-(no outcome written)}"
        echo "--- $setting's output (end) ---"
        tail -60 $setting-again.log
        status=1
    fi
done
exit $status
