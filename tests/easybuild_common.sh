# easybuild_common.sh: sourced by easybuild.sh and easybuild_mpi_in_path.sh,
# which build an easyconfig of packaging/easybuild/ with EasyBuild (EB: its
# `eb`, from PyPI into .venv-easybuild by `make deps`) as a site builds it:
# the source a `git archive` of SOURCE-DIR's HEAD, jemalloc's release
# tarball (Debian's orig tarball that this build fetched, the same file as
# upstream's; else a tarball packed from JEMALLOC-TREE, with
# --ignore-checksums), everything in a scratch directory: sources, build,
# installation and module, under Debian's Lmod.
#
# eb_prepare SOURCE-DIR EASYCONFIG EB JEMALLOC-TREE: checks what the build
#   needs (skips, 77, saying why, without EasyBuild or without a git
#   checkout to archive; fails without the easyconfig or Lmod), makes the
#   scratch directory $tmp (removed on exit) and the sources, starts Lmod.
# eb_build: runs eb on the easyconfig into $tmp/eb/install ($installpath),
#   failing with the ends of its output and logs; prints how long it took.
# The sourcing script defines fail (as for loaded.sh) and $failed.

eb_prepare() {
    eb_src=$1 eb_ec=$2 eb_eb=$3
    local jemalloc_tree=$4 version top sources changed orig want
    local lmod_init=/usr/share/lmod/lmod/init/profile # as a login shell runs it
    version=$(sed -n "s/^version = '\(.*\)'$/\1/p" "$eb_ec" 2>/dev/null)
    [ -r "$eb_ec" ] && [ -n "$version" ] || { echo "FAIL: no easyconfig with a version: $eb_ec"; exit 1; }
    [ -r "$lmod_init" ] || { echo "FAIL: no $lmod_init (apt-get install lmod; make deps does)"; exit 1; }
    if [ ! -x "$eb_eb" ]; then
        echo "SKIP: no EasyBuild at $eb_eb: make deps installs it from PyPI (pip install -r packaging/easybuild/requirements.txt into .venv-easybuild); was PyPI reachable?"
        exit 77
    fi
    top=$(git -C "$eb_src" rev-parse --show-toplevel 2>/dev/null)
    if [ "$top" != "$(realpath "$eb_src")" ]; then
        echo "SKIP: $eb_src is not a git checkout: this test builds a git archive of it"
        exit 77
    fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT

    # The sources.
    sources=$tmp/sources/w/wisp
    mkdir -p "$sources"
    git -C "$eb_src" archive --prefix="wisp-$version/" -o "$sources/wisp-$version.tar.gz" HEAD ||
        { echo "FAIL: git archive"; exit 1; }
    changed=$(git -C "$eb_src" --no-optional-locks status --porcelain --untracked-files=no | wc -l)
    echo "wisp: git archive of $(git -C "$eb_src" log -1 --format=%h HEAD)$([ "$changed" = 0 ] || echo " (HEAD: $changed files changed in the work tree are not in it)")"
    eb_checksum_opt=()
    orig=$(dirname "$jemalloc_tree")/jemalloc_5.3.0.orig.tar.bz2
    want=$(sed -n "s/^ *'\([0-9a-f]\{64\}\)',  # jemalloc-5.3.0.tar.bz2$/\1/p" "$eb_ec")
    if [ -r "$orig" ] && [ "$(sha256sum <"$orig" | cut -d' ' -f1)" = "$want" ]; then
        cp "$orig" "$sources/jemalloc-5.3.0.tar.bz2"
        echo "jemalloc: Debian's $orig (upstream's checksum)"
    elif [ -e "$jemalloc_tree/configure" ]; then
        tar -C "$(dirname "$jemalloc_tree")" -cjf "$sources/jemalloc-5.3.0.tar.bz2" \
            --transform "s,^$(basename "$jemalloc_tree"),jemalloc-5.3.0," "$(basename "$jemalloc_tree")" ||
            { echo "FAIL: cannot pack $jemalloc_tree"; exit 1; }
        eb_checksum_opt=(--ignore-checksums)
        echo "jemalloc: packed from $jemalloc_tree (not the release tarball: --ignore-checksums)"
    else
        echo "FAIL: no jemalloc source in $jemalloc_tree (build the jemalloc target first)"
        exit 1
    fi

    # Lmod, as a login shell has it.
    unset MODULEPATH MODULEPATH_ROOT LOADEDMODULES _LMFILES_ MODULESHOME MANPATH
    set +u # (Lmod's scripts use unset variables)
    # shellcheck disable=SC1090
    source "$lmod_init" || { echo "FAIL: source $lmod_init"; exit 1; }
}

eb_build() {
    local root_opt=() start status log
    export EB_PYTHON
    EB_PYTHON=$(dirname "$eb_eb")/python
    [ "$(id -u)" != 0 ] || root_opt=(--allow-use-as-root-and-accept-consequences)
    installpath=$tmp/eb/install
    start=$(date +%s)
    "$eb_eb" "$eb_ec" "${root_opt[@]}" "${eb_checksum_opt[@]}" --modules-tool=Lmod --module-syntax=Lua \
        --prefix="$tmp/eb" --installpath="$installpath" --buildpath="$tmp/eb/build" --sourcepath="$tmp/sources" \
        --tmpdir="$tmp/eb/tmp" --tmp-logdir="$tmp/eb/logs" --disable-cleanup-tmpdir --trace >"$tmp/eb.out" 2>&1
    status=$?
    if [ $status != 0 ]; then
        echo "FAIL: eb exited with $status:"
        tail -n 30 "$tmp/eb.out"
        for log in "$tmp"/eb/logs/*.log; do
            [ -e "$log" ] && { echo "--- the end of $log:"; tail -n 40 "$log"; }
        done
        exit 1
    fi
    echo "eb built and installed $(basename "$eb_ec" .eb) in $(($(date +%s) - start)) s"
    grep -q "COMPLETED: Installation ended successfully" "$tmp/eb.out" || fail "eb did not say it completed:"$'\n'"$(tail "$tmp/eb.out")"
    # What its sanity check found and ran (eb --trace: "file 'bin/wisprun' found: OK").
    sed -n "s/^  >> \(file\|(non-empty) directory\) \(.*\) found: OK$/eb's sanity check: \2/p;
            s/^  >> result for command '\(.*\)': OK$/eb's sanity check: \1/p" "$tmp/eb.out"
}
