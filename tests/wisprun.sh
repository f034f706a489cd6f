#!/usr/bin/env bash
# wisprun.sh WISPRUN MPI
# The launcher's own interface: help texts, argument errors (exit 2 with a
# message), the command it builds for each MPI (--dry-run), and --native.
set -u
wisprun=$1 mpi=$2
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$wisprun" --help | grep -q '^usage: wisprun' || fail "--help"
help_env=$("$wisprun" --help-env)
for var in WISP_VNODE_SIZE WISP_VERBOSE WISP_STATS WISP_JOB; do
    grep -q "^$var (" <<<"$help_env" || fail "--help-env lacks $var"
done

for bad in "-n 0 true" "-n x true" "--env NOEQUALS true" "--bogus true" "-n 2"; do
    # shellcheck disable=SC2086
    msg=$("$wisprun" $bad 2>&1)
    status=$?
    [ $status = 2 ] && grep -q '^wisprun: ' <<<"$msg" || fail "'wisprun $bad' gave $status: $msg"
done

dry=$(WISP_JOB=tag1 WISP_VERBOSE=1 "$wisprun" --dry-run --env FOO=bar -n 3 ./app a1)
native=$("$wisprun" --dry-run --native -n 3 ./app a1)
echo "wisp:   $dry"
echo "native: $native"
grep -q "libwisp-$mpi\.so" <<<"$dry" || fail "no libwisp-$mpi in LD_PRELOAD"
grep -q 'GLIBC_TUNABLES' <<<"$dry" && fail "GLIBC_TUNABLES set: the shared heap needs nothing in the environment"
grep -q 'libwisp' <<<"$native" && fail "--native still preloads wisp"
grep -q 'WISP_JOB' <<<"$native" && fail "--native still sets WISP_JOB"
grep -q -- '-n 3 ' <<<"$dry" && grep -q './app a1 $' <<<"$dry" || fail "process count or program lost"
case "$mpi" in
mpich)
    grep -q -- '-genv FOO bar' <<<"$dry" || fail "--env not passed with -genv"
    grep -q -- '-genv WISP_JOB tag1' <<<"$dry" || fail "WISP_JOB not passed"
    ;;
openmpi)
    grep -q -- '--oversubscribe' <<<"$dry" || fail "no --oversubscribe"
    [ "$(id -u)" != 0 ] || grep -q -- '--allow-run-as-root' <<<"$dry" || fail "no --allow-run-as-root"
    grep -q -- '-x WISP_VERBOSE ' <<<"$dry" || fail "environment WISP_* not exported"
    grep -q -- '-x WISP_JOB ' <<<"$dry" && fail "WISP_JOB exported twice"
    grep -q -- '-x FOO=bar' <<<"$dry" || fail "--env not passed with -x"
    ;;
esac

out=$("$wisprun" --native -n 2 sh -c 'echo "preload=[${LD_PRELOAD:-}]"' | sort -u)
[ "$out" = "preload=[]" ] || fail "--native run sees: $out"
out=$("$wisprun" -n 2 sh -c 'echo "job=${WISP_JOB:+set}"' | sort -u)
[ "$out" = "job=set" ] || fail "wisp run sees: $out"
exit $failed
