# loaded.sh: sourced by module.sh and easybuild.sh. check_loaded PREFIX WORK
# checks a shell where `module load wisp` put the wisp installed in PREFIX
# (both MPIs) in the environment, as a user would use it, with scratch
# files in WORK; it calls the sourcing script's fail on every failure:
# - wisprun, man wisprun and man wisp, pkg-config wisp-<mpi> and
#   find_package(wisp) are found through PATH, MANPATH, PKG_CONFIG_PATH and
#   CMAKE_PREFIX_PATH; no WISP_* variable is set (wisp refuses unknown ones);
# - an MPICH and an Open MPI program run through the one `wisprun` with the
#   heap serving (WISP_VERBOSE=1), and a program linked with -lwisp-<mpi>
#   (no rpath: LD_LIBRARY_PATH) runs under the plain mpiexec with wisp on.
check_loaded() {
    local prefix=$1 work=$2 m name out status version
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    [ "$(command -v wisprun)" = "$prefix/bin/wisprun" ] || fail "wisprun on PATH is '$(command -v wisprun)', not $prefix/bin/wisprun"
    [ "$(man -w wisprun 2>&1)" = "$prefix/share/man/man1/wisprun.1" ] || fail "man -w wisprun: $(man -w wisprun 2>&1)"
    [ "$(man -w 7 wisp 2>&1)" = "$prefix/share/man/man7/wisp.7" ] || fail "man -w 7 wisp: $(man -w 7 wisp 2>&1)"
    [[ ":${CMAKE_PREFIX_PATH:-}:" == *":$prefix:"* ]] || fail "CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-} lacks $prefix"
    [ -z "$(compgen -e | grep '^WISP_')" ] || fail "WISP_* variables set: $(compgen -e | grep '^WISP_' | xargs)"
    version=$(wisprun --version | sed -n '1s/^wisp \([^ ]*\).*/\1/p')
    for m in mpich openmpi; do
        [ "$(pkg-config --modversion "wisp-$m" 2>&1)" = "$version" ] || fail "pkg-config --modversion wisp-$m: $(pkg-config --modversion "wisp-$m" 2>&1)"
        "mpicc.$m" "$here/install/hello.c" -o "$work/hello_$m" || fail "mpicc.$m"
        out=$(wisprun --env WISP_VERBOSE=1 -n 2 "$work/hello_$m" 2>"$work/err")
        status=$?
        name=$([ $m = mpich ] && echo MPICH || echo "Open MPI")
        [ $status = 0 ] && [ "$out" = "hello: $name, 2 processes: ok" ] ||
            fail "wisprun -n 2 hello_$m, exit $status: $out"$'\n'"$(cat "$work/err")"
        [ "$(grep -c '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions' "$work/err")" = 1 ] ||
            fail "wisprun -n 2 hello_$m: no line saying that the heap serves:"$'\n'"$(cat "$work/err")"
        # shellcheck disable=SC2046
        "mpicc.$m" "$here/install/app.c" -o "$work/app_$m" $(pkg-config --cflags --libs "wisp-$m") ||
            fail "mpicc.$m with pkg-config wisp-$m"
        if [ $m = mpich ]; then
            out=$(mpiexec.mpich -n 2 "$work/app_$m" 2>&1)
        else
            out=$(mpiexec.openmpi -n 2 --oversubscribe --allow-run-as-root "$work/app_$m" 2>&1)
        fi
        [[ "$out" == "linked: ok"* ]] || fail "a program linked with -lwisp-$m under mpiexec.$m: $out"
    done
    out=$(cmake -S "$here/install" -B "$work/consumer" -DCOMPONENT=openmpi 2>&1) &&
        [ "$(cat "$work/consumer/wisp_mpi.txt")" = openmpi ] || fail "find_package(wisp COMPONENTS openmpi) through CMAKE_PREFIX_PATH: $out"
    rm -rf "$work/consumer"
}
