#!/usr/bin/env bash
# conformance_fetch.sh DIR: put MPICH's source (Debian's mpich 4.0.2 source
# package, whose test/mpi is MPICH's own test suite) under DIR, once, with
# debsrc_fetch.sh. Prints the path of test/mpi. Needs root and the network on
# first use.
set -euo pipefail
tree=$(bash "$(dirname "$0")/debsrc_fetch.sh" "conformance: cannot fetch MPICH's test suite" \
    mpich 4.0.2 "$1" test/mpi/configure)
echo "$tree/test/mpi"
