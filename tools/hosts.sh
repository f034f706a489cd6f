#!/usr/bin/env bash
# hosts.sh: two hosts on this machine for multi-host tests, made of Linux
# namespaces (root only).
#
#   hosts.sh up BED        make hosts 1 and 2 of BED; prints nothing
#   hosts.sh down BED      kill what still runs in them, remove them
#   hosts.sh exec BED H CMD [ARGS...]   run CMD on host H (1 or 2)
#   hosts.sh ssh BED       print the path of BED's ssh stand-in
#   hosts.sh link BED RATE cap the link to RATE each way (Nmbit or Ngbit; a
#                          token bucket, tc tbf, on both eth0s), or lift the
#                          cap (off)
#   hosts.sh check         exit 77 with a reason when namespaces are not available
#
# Host H has its own cores: half of those this script may use each (all of
# them when there is one), as taskset sets them for what runs on it, so
# that an MPI that binds its first process to the first core does not put
# both hosts' on the same one (Open MPI binds to the machine's first core
# whatever it is allowed: OMPI_MCA_hwloc_base_binding_policy=none on the
# bed leaves its processes on their host's cores). Host H also has its own
# network namespace (ip netns BED-hostH) with loopback
# and eth0, address 10.77.0.H/24, the two eth0s joined by a veth pair, and
# its own UTS namespace with host name hostH (a bind mount under
# /run/wisp-hosts/BED, as ip netns keeps network namespaces). Everything
# else is shared: the file system, /dev/shm, process ids. The ssh stand-in,
# /run/wisp-hosts/BED/ssh [-x] HOST COMMAND..., runs COMMAND as ssh would
# (its words joined, through bash) on HOST (10.77.0.H, hostH or H): give it
# to Hydra (-launcher ssh -launcher-exec) or Open MPI (--mca plm_rsh_agent),
# and launch from host 1, the head node.
#
# up first removes the beds of owners that died without calling down (the
# owner is the process that called up, or $HOSTS_OWNER).
set -u
readonly RUN=/run/wisp-hosts
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
    echo "hosts.sh: $*" >&2
    exit 2
}

check() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
    command -v ip >/dev/null && command -v nsenter >/dev/null && command -v unshare >/dev/null ||
        { echo "SKIP: ip, nsenter or unshare missing"; exit 77; }
    local probe="wisp-probe-$$"
    ip netns add "$probe" 2>/dev/null || { echo "SKIP: cannot make a network namespace"; exit 77; }
    ip netns del "$probe"
    unshare --uts true 2>/dev/null || { echo "SKIP: cannot make a UTS namespace"; exit 77; }
}

down() {
    local bed=$1 h pid
    for h in 1 2; do
        if [ -e "/run/netns/$bed-host$h" ]; then
            for pid in $(ip netns pids "$bed-host$h" 2>/dev/null); do
                kill -9 "$pid" 2>/dev/null
            done
            ip netns del "$bed-host$h" 2>/dev/null
        fi
        if [ -e "$RUN/$bed/host$h.uts" ]; then
            umount "$RUN/$bed/host$h.uts" 2>/dev/null
        fi
    done
    rm -rf "${RUN:?}/$bed"
}

# Beds whose owner is gone (a test killed before its trap ran).
sweep() {
    local dir owner
    for dir in "$RUN"/*/; do
        [ -f "$dir/owner" ] || continue
        owner=$(cat "$dir/owner")
        kill -0 "$owner" 2>/dev/null || down "$(basename "$dir")"
    done
}

up() {
    local bed=$1 h
    [[ "$bed" =~ ^[A-Za-z0-9_.-]{1,20}$ ]] || die "bed name '$bed': 1-20 letters, digits, . _ -"
    sweep
    [ ! -e "$RUN/$bed" ] || die "bed '$bed' exists (hosts.sh down $bed)"
    mkdir -p "$RUN/$bed" || die "cannot make $RUN/$bed"
    echo "${HOSTS_OWNER:-$PPID}" >"$RUN/$bed/owner"
    cores_of 1 >"$RUN/$bed/host1.cores"
    cores_of 2 >"$RUN/$bed/host2.cores"
    for h in 1 2; do
        ip netns add "$bed-host$h" || { down "$bed"; die "cannot make network namespace $bed-host$h"; }
        touch "$RUN/$bed/host$h.uts"
        unshare --uts="$RUN/$bed/host$h.uts" hostname "host$h" ||
            { down "$bed"; die "cannot make the UTS namespace of host$h"; }
    done
    ip link add eth0 netns "$bed-host1" type veth peer name eth0 netns "$bed-host2" ||
        { down "$bed"; die "cannot make the veth pair"; }
    for h in 1 2; do
        ip -n "$bed-host$h" addr add "10.77.0.$h/24" dev eth0 &&
            ip -n "$bed-host$h" link set lo up &&
            ip -n "$bed-host$h" link set eth0 up || { down "$bed"; die "cannot configure host$h"; }
    done
    # A veth pair has its carrier a moment after it is set up; until then
    # UCX sees no usable interface.
    for _ in $(seq 100); do
        ip -n "$bed-host1" -o link show eth0 | grep -q "state UP" &&
            ip -n "$bed-host2" -o link show eth0 | grep -q "state UP" && break
        sleep 0.05
    done
    cat >"$RUN/$bed/ssh" <<SSH
#!/usr/bin/env bash
# ssh stand-in for bed $bed (tools/hosts.sh): [-x] HOST COMMAND...
[ "\${1:-}" != -x ] || shift
host=\${1:?host}
shift
exec "$here/hosts.sh" exec "$bed" "\$host" bash -c "\$*"
SSH
    chmod +x "$RUN/$bed/ssh"
}

# The token bucket holds at least what the rate brings in one timer tick
# (4 ms at the kernel's 250 Hz), and a 64 KiB segment; no delay is added
# (this kernel has no netem), so the latency stays the veth's.
link() {
    local bed=$1 rate=$2 h bits=0 burst
    [ -e "$RUN/$bed/host1.uts" ] || die "no bed '$bed' (hosts.sh up $bed)"
    if [ "$rate" != off ]; then
        [[ "$rate" =~ ^([1-9][0-9]{0,5})([mg])bit$ ]] || die "link rate '$rate': Nmbit, Ngbit or off"
        local unit=1000000
        [ "${BASH_REMATCH[2]}" = m ] || unit=1000000000
        bits=$((BASH_REMATCH[1] * unit))
    fi
    burst=$((bits / 8 / 250))
    [ "$burst" -ge 65536 ] || burst=65536
    for h in 1 2; do
        if [ "$bits" = 0 ]; then
            tc -n "$bed-host$h" qdisc del dev eth0 root 2>/dev/null
        else
            tc -n "$bed-host$h" qdisc replace dev eth0 root tbf rate "$rate" burst "$burst" \
                latency 50ms || die "cannot cap eth0 of host$h (tc tbf)"
        fi
    done
    return 0
}

# The cores of host H (1 or 2): its half of the ones allowed here, as a
# taskset list (all of them when there is one); kept at up.
cores_of() {
    local h=$1 list cpus=() part lo hi c half
    list=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
    for part in ${list//,/ }; do
        lo=${part%-*} hi=${part#*-}
        for ((c = lo; c <= hi; c++)); do cpus+=("$c"); done
    done
    half=$((${#cpus[@]} / 2))
    if [ "$half" = 0 ]; then
        echo "$list"
    elif [ "$h" = 1 ]; then
        local first=("${cpus[@]:0:half}")
        echo "${first[*]}" | tr ' ' ,
    else
        local second=("${cpus[@]:half}")
        echo "${second[*]}" | tr ' ' ,
    fi
}

exec_on() {
    local bed=$1 host=$2 h
    shift 2
    case "$host" in
    1 | host1 | 10.77.0.1) h=1 ;;
    2 | host2 | 10.77.0.2) h=2 ;;
    *) die "unknown host '$host' (1, 2, host1, host2, 10.77.0.1, 10.77.0.2)" ;;
    esac
    [ -e "$RUN/$bed/host$h.uts" ] || die "no bed '$bed' (hosts.sh up $bed)"
    OMPI_MCA_hwloc_base_binding_policy=none exec taskset -c "$(cat "$RUN/$bed/host$h.cores")" \
        nsenter --net="/run/netns/$bed-host$h" --uts="$RUN/$bed/host$h.uts" -- "$@"
}

[ $# -ge 1 ] || die "usage: hosts.sh up|down|exec|ssh|link|check ..."
cmd=$1
shift
case "$cmd" in
check) check ;;
up) [ $# = 1 ] || die "usage: hosts.sh up BED"; up "$1" ;;
down) [ $# = 1 ] || die "usage: hosts.sh down BED"; down "$1" ;;
exec) [ $# -ge 3 ] || die "usage: hosts.sh exec BED HOST COMMAND..."; exec_on "$@" ;;
ssh) [ $# = 1 ] || die "usage: hosts.sh ssh BED"; echo "$RUN/$1/ssh" ;;
link) [ $# = 2 ] || die "usage: hosts.sh link BED RATE|off"; link "$1" "$2" ;;
*) die "unknown command '$cmd' (up, down, exec, ssh, link, check)" ;;
esac
