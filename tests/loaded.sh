# loaded.sh: sourced by module.sh, easybuild.sh and easybuild_mpi_in_path.sh. check_loaded PREFIX WORK
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
    local prefix=$1 work=$2 m out
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    check_loaded_env "$prefix"
    for m in mpich openmpi; do
        if [ $m = mpich ]; then
            check_loaded_mpi "$work" mpich MPICH mpicc.mpich mpiexec.mpich
        else
            check_loaded_mpi "$work" openmpi "Open MPI" mpicc.openmpi "mpiexec.openmpi --oversubscribe --allow-run-as-root"
        fi
    done
    out=$(cmake -S "$here/install" -B "$work/consumer" -DCOMPONENT=openmpi 2>&1) &&
        [ "$(cat "$work/consumer/wisp_mpi.txt")" = openmpi ] || fail "find_package(wisp COMPONENTS openmpi) through CMAKE_PREFIX_PATH: $out"
    rm -rf "$work/consumer"
}

# check_loaded_env PREFIX: wisprun and the manual pages are PREFIX's, found
# through PATH and MANPATH; CMAKE_PREFIX_PATH holds PREFIX; no WISP_* set.
check_loaded_env() {
    local prefix=$1
    [ "$(command -v wisprun)" = "$prefix/bin/wisprun" ] || fail "wisprun on PATH is '$(command -v wisprun)', not $prefix/bin/wisprun"
    [ "$(man -w wisprun 2>&1)" = "$prefix/share/man/man1/wisprun.1" ] || fail "man -w wisprun: $(man -w wisprun 2>&1)"
    [ "$(man -w 7 wisp 2>&1)" = "$prefix/share/man/man7/wisp.7" ] || fail "man -w 7 wisp: $(man -w 7 wisp 2>&1)"
    [[ ":${CMAKE_PREFIX_PATH:-}:" == *":$prefix:"* ]] || fail "CMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH:-} lacks $prefix"
    [ -z "$(compgen -e | grep '^WISP_')" ] || fail "WISP_* variables set: $(compgen -e | grep '^WISP_' | xargs)"
}

# check_loaded_mpi WORK MPI MAKE MPICC "LAUNCHER [OPTIONS]": one MPI of the
# loaded wisp (MPI: its library's name, wisp-<MPI>; MAKE: what the MPI's
# MPI_Get_library_version starts with, MPICH or Open MPI): pkg-config
# wisp-MPI has wisprun's version; a program built with MPICC runs through
# wisprun with the heap serving (WISP_VERBOSE=1), and one linked with
# -lwisp-MPI (no rpath: LD_LIBRARY_PATH) runs under the plain LAUNCHER.
check_loaded_mpi() {
    local work=$1 m=$2 name=$3 cc=$4 launcher=$5 out status version
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    version=$(wisprun --version | sed -n '1s/^wisp \([^ ]*\).*/\1/p')
    [ "$(pkg-config --modversion "wisp-$m" 2>&1)" = "$version" ] || fail "pkg-config --modversion wisp-$m: $(pkg-config --modversion "wisp-$m" 2>&1)"
    "$cc" "$here/install/hello.c" -o "$work/hello_$m" || fail "$cc"
    out=$(wisprun --env WISP_VERBOSE=1 -n 2 "$work/hello_$m" 2>"$work/err")
    status=$?
    [ $status = 0 ] && [ "$out" = "hello: $name, 2 processes: ok" ] ||
        fail "wisprun -n 2 hello_$m, exit $status: $out"$'\n'"$(cat "$work/err")"
    [ "$(grep -c '^wisp\[0\]: shared heap at 0x[0-9a-f]*: 2 partitions' "$work/err")" = 1 ] ||
        fail "wisprun -n 2 hello_$m: no line saying that the heap serves:"$'\n'"$(cat "$work/err")"
    # shellcheck disable=SC2046
    "$cc" "$here/install/app.c" -o "$work/app_$m" $(pkg-config --cflags --libs "wisp-$m") ||
        fail "$cc with pkg-config wisp-$m"
    # shellcheck disable=SC2086
    out=$($launcher -n 2 "$work/app_$m" 2>&1)
    [[ "$out" == "linked: ok"* ]] || fail "a program linked with -lwisp-$m under $launcher: $out"
}
