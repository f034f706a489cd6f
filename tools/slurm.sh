#!/usr/bin/env bash
# slurm.sh: a Slurm cluster of this one machine for tests (root only):
# munged, slurmctld and slurmd from Debian's munge and slurm-wlm, with their
# configuration, keys, sockets, state and logs in a directory of their own.
#
#   slurm.sh up DIR [task/none|task/affinity] [NODES]   start them (task/none, 1 node by default)
#   slurm.sh down DIR                           stop them by their PIDs
#   slurm.sh check                              exit 77 with a reason where they cannot run
#
# After up, DIR/env sets SLURM_CONF for the clients (srun, salloc, sbatch,
# scontrol): `. DIR/env`. With one node it is this machine under its host
# name, with its cores; with NODES > 1 they are slurmd's of their own on
# this machine, named wisp1, wisp2, ..., each with all its cores (each its
# own port, spool, PID and log file). The one partition, "wisp", is the
# default. MpiDefault is none, as on a cluster whose users must name --mpi=.
set -u

die() {
    echo "slurm.sh: $*" >&2
    exit 2
}

check() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: the Slurm bed needs root"; exit 77; }
    for d in munged mungekey slurmctld slurmd srun; do
        command -v "$d" >/dev/null || { echo "SKIP: $d missing (Debian's munge and slurm-wlm)"; exit 77; }
    done
}

# A TCP port nobody listens on, from a range of its own.
free_port() {
    local p
    for p in $(shuf -i 20000-29999 -n 50); do
        ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
    done
    die "no free port"
}

up() {
    local dir=$1 task=${2:-task/none} nodes=${3:-1} host cpus names n
    mkdir -p "$dir"/state "$dir"/spool && chmod 700 "$dir" || die "cannot make $dir"
    host=$(hostname -s)
    cpus=$(nproc --all)
    mungekey --create --keyfile="$dir/munge.key" --force >/dev/null 2>&1 || die "mungekey failed"
    munged --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
        --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" --force ||
        die "munged did not start: $(tail -3 "$dir/munged.log" 2>/dev/null)"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=wisp
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=$task
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
PartitionName=wisp Nodes=ALL Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
    if [ "$nodes" = 1 ]; then
        names=$host
        echo "NodeName=$host CPUs=$cpus Port=$(free_port) State=UNKNOWN" >>"$dir/slurm.conf"
    else
        names=$(seq -f "wisp%g" 1 "$nodes")
        for n in $names; do
            echo "NodeName=$n NodeHostname=$host CPUs=$cpus Port=$(free_port) State=UNKNOWN" >>"$dir/slurm.conf"
        done
    fi
    echo "export SLURM_CONF=$dir/slurm.conf" >"$dir/env"
    SLURM_CONF=$dir/slurm.conf slurmctld -f "$dir/slurm.conf" || die "slurmctld did not start"
    for n in $names; do
        mkdir -p "$dir/spool/$n"
        if [ "$nodes" = 1 ]; then
            SLURM_CONF=$dir/slurm.conf slurmd -f "$dir/slurm.conf" || die "slurmd did not start"
        else
            SLURM_CONF=$dir/slurm.conf slurmd -f "$dir/slurm.conf" -N "$n" || die "slurmd $n did not start"
        fi
    done
    local i
    for i in $(seq 1 100); do # every node up and idle
        [ "$(SLURM_CONF=$dir/slurm.conf sinfo -h -N -o %t 2>/dev/null | grep -cx idle)" = "$nodes" ] &&
            return 0
        sleep 0.2
    done
    die "the nodes did not come up: $(tail -3 "$dir"/slurmd-*.log "$dir/slurmctld.log" 2>/dev/null)"
}

down() {
    local dir=$1 f pid
    for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
        pid=$(cat "$f" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
    return 0
}

case "${1:-}" in
up) [ $# -ge 2 ] || die "usage: slurm.sh up DIR [TASKPLUGIN] [NODES]"; check >/dev/null || check; up "$2" "${3:-}" "${4:-}" ;;
down) [ $# = 2 ] || die "usage: slurm.sh down DIR"; down "$2" ;;
check) check ;;
*) die "usage: slurm.sh up DIR [TASKPLUGIN] [NODES] | down DIR | check" ;;
esac
