"""The two-host bed (tools/hosts.sh) for bench/apps/report.py --hosts: a
bed of its own for the session, its link settings, and how a run is
launched across it (as tests/hosts/run.sh does: from host 1, through the
bed's ssh stand-in, one or two processes per host).

Open MPI runs over btl tcp with osc pt2pt (the only one-sided component
that runs over TCP). MPICH runs over what UCX picks, its shared memory
(the hosts are one machine), so its figures do not cross the link: over
UCX's TCP transport MPICH 4.0.2 on UCX 1.13.1 hangs in MPI_Finalize now
and then (docs/benchmarks.md).
"""

import os
import subprocess

HOSTS_SH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "hosts.sh")


class BedError(Exception):
    pass


class Bed:
    """A bed brought up for this process (HOSTS_OWNER: a bed left behind by
    a killed session is swept by the next `up`)."""

    def __init__(self, name=None):
        self.name = name or f"rep{os.getpid() % 100000}"
        self.link = "off"

    def _run(self, *args):
        env = dict(os.environ, HOSTS_OWNER=str(os.getpid()))
        done = subprocess.run(["bash", HOSTS_SH, *args], env=env, text=True,
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise BedError(f"hosts.sh {' '.join(args)}: "
                           f"{(done.stdout + done.stderr).strip()}")
        return done.stdout.strip()

    def __enter__(self):
        check = subprocess.run(["bash", HOSTS_SH, "check"], text=True,
                               capture_output=True, check=False)
        if check.returncode != 0:
            raise BedError(check.stdout.strip() or "no namespaces here")
        self._run("up", self.name)
        return self

    def __exit__(self, *exc):
        self._run("down", self.name)
        return False

    def set_link(self, rate):
        """`off` (the veth pair as it is) or a tc rate (10gbit)."""
        if rate != self.link:
            self._run("link", self.name, rate)
            self.link = rate

    def launch(self, mpi, per_host, wisprun_cmd, windows=True):
        """`wisprun_cmd` (wisprun and its options, up to the -n) run from
        host 1 across both hosts, `per_host` slots each. Without `windows`
        Open MPI gets no one-sided component: osc pt2pt refuses
        MPI_THREAD_MULTIPLE, and wisp then starts no progress thread."""
        ssh = self._run("ssh", self.name)
        hosts = f"10.77.0.1:{per_host},10.77.0.2:{per_host}"
        if mpi == "mpich":
            args = ["-launcher", "ssh", "-launcher-exec", ssh, "-hosts", hosts]
        else:
            args = ["--mca", "plm_rsh_agent", ssh, "--mca", "btl", "tcp,vader,self",
                    "--mca", "pml", "ob1", "--mca", "osc", "^ucx" if windows else "^ucx,pt2pt",
                    "--mca", "btl_tcp_if_include", "eth0",
                    "--mca", "oob_tcp_if_include", "eth0", "-host", hosts]
        extra = [w for a in args for w in ("--mpiexec-arg", a)]
        n = wisprun_cmd.index("-n")
        return (["bash", HOSTS_SH, "exec", self.name, "1"]
                + wisprun_cmd[:n] + extra + wisprun_cmd[n:])
