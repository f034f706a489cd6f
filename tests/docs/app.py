# The python program the documentation's command blocks call app.py
# (tools/docs_blocks.py): mpi4py's ring and allreduce, like app.c.
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
token = comm.sendrecv(rank, dest=(rank + 1) % size, source=(rank - 1) % size)
total = comm.allreduce(rank)
ok = token == (rank - 1) % size and total == size * (size - 1) // 2
if rank == 0:
    print(f"app.py: {size} processes: {'ok' if ok else 'FAILED'}")
raise SystemExit(0 if ok else 1)
