/*
 * The differential tester's programs (issue 26): a schedule of point-to-point
 * phases that every rank generates identically from one seed, and the
 * outcome MPI's rules fix for it (which message each receive gets).
 *
 * A phase, on every rank:
 *   1. post its early receives (Irecv, persistent Start, receives to cancel,
 *      partitioned inits);
 *   (a collective, when the phase has ready sends: the early receives are
 *   then posted everywhere)
 *   3. start every send, in its order, with the middle receives (Irecv)
 *      and the partitions' Pready between them;
 *   (a collective, perhaps: early receives still pending)
 *   5. its late receives (blocking, probes, matched probes, Irecv + Wait),
 *      waits on some early receives, cancels;
 *   6. complete the rest (Waitall, Waitany, Testsome, ...);
 *   (a collective at the end, always when an MPI_ANY_SOURCE receive was
 *   posted: the next phase's messages must not reach it).
 * Deadlock-free by construction: a send that may block (standard,
 * synchronous, ready) goes only to an early receive, posted before any rank
 * waits on anything in the phase; every message a rank waits for is started
 * in step 3, which no rank blocks in indefinitely.
 *
 * Deterministic by construction: on one channel (sender, receiver,
 * communicator) MPI's two ordering rules fix which receive gets which
 * message, whatever the timing: receive by receive, in posting order, the
 * first unmatched message of the channel that matches it. A wildcard source
 * is generated only where every message of the phase that its tag pattern
 * matches comes from one sender, so it too reads one channel.
 */
#ifndef WISP_FUZZ_SCHEDULE_H
#define WISP_FUZZ_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum { FZ_COMMS = 3 };             /* MPI_COMM_WORLD, a duplicate, one with the ranks reversed */
enum { FZ_ANY = -1 };              /* a wildcard source or tag in a receive's pattern */
enum { FZ_CANCEL_TAG = 30000 };    /* never sent: receives posted to be cancelled */
enum { FZ_PART_TAG = 31000 };      /* partitioned transfers, one tag each */
enum { FZ_BSEND_MAX = 64 * 1024 }; /* largest buffered message */
enum { FZ_BSEND_PHASE = 4 << 20 }; /* buffered bytes per rank and phase */

enum fz_dtype { FZ_BYTE, FZ_INT, FZ_VEC }; /* FZ_VEC: MPI_Type_vector(2, 1, 2, MPI_INT) */

enum fz_send_kind {
    FZ_SEND,
    FZ_SSEND,
    FZ_BSEND,
    FZ_RSEND, /* blocking */
    FZ_ISEND,
    FZ_ISSEND,
    FZ_IBSEND,
    FZ_IRSEND, /* nonblocking */
    FZ_PSEND,
    FZ_PSSEND,
    FZ_PBSEND,
    FZ_PRSEND, /* persistent: *_init, Start, completed in step 6 */
    FZ_NSEND_KINDS
};

enum fz_recv_kind {
    FZ_IRECV,
    FZ_PRECV, /* early or middle; completed in step 6 or waited in 5 */
    FZ_RECV,
    FZ_PROBE,
    FZ_IPROBE, /* late: MPI_Recv, MPI_Probe + Recv, Iprobe loop + Recv */
    FZ_MPROBE,
    FZ_IMPROBE, /* late: Mprobe + Mrecv, Improbe loop + Imrecv + Wait */
    FZ_IRECV_WAIT,
    FZ_PRECV_WAIT, /* late: Irecv + Wait, persistent Start + Wait */
    FZ_CANCELLED,  /* posted early or middle, cancelled in step 5 */
    FZ_NRECV_KINDS
};

enum fz_group { FZ_EARLY, FZ_MIDDLE, FZ_LATE };

enum fz_coll_kind {
    FZ_BARRIER,
    FZ_ALLREDUCE,
    FZ_BCAST,
    FZ_ALLGATHER,
    FZ_ALLTOALL,
    FZ_REDUCE,
    FZ_NCOLL
};

enum fz_complete {
    FZ_WAITALL,
    FZ_WAITANY,
    FZ_WAITSOME,
    FZ_TESTALL,
    FZ_TESTANY,
    FZ_TESTSOME,
    FZ_WAITEACH,
    FZ_NCOMPLETE
};

struct fz_msg {
    int src, dst, comm, tag; /* world ranks */
    int send_type; /* FZ_BYTE; or FZ_INT / FZ_VEC for a message of ints (bytes % 8 == 0) */
    long bytes;    /* payload */
    int kind;      /* enum fz_send_kind */
    uint64_t id;   /* payload seed; the first 8 bytes carry it */
    int recv;      /* the receive MPI's rules give it */
};

struct fz_recv {
    int dst, comm, src, tag; /* pattern: world rank or FZ_ANY; tag or FZ_ANY */
    int group, kind;
    int recv_type; /* chosen for the matched message's signature */
    long cap;      /* receive count, in recv_type elements (>= the message's) */
    int msg;       /* the matched message, -1 for a cancelled receive */
    int wait_late; /* early/middle: waited for alone in step 5 */
};

struct fz_part {
    int src, dst, comm, partitions;
    long part_bytes;
    uint64_t id;
};

struct fz_coll {
    int kind, comm, root;
    long bytes; /* bcast */
};

enum fz_op_type {
    FZ_OP_POST,
    FZ_OP_SEND,
    FZ_OP_LATE,
    FZ_OP_WAIT,
    FZ_OP_CANCEL,
    FZ_OP_PSEND_INIT,
    FZ_OP_PRECV_INIT,
    FZ_OP_PREADY
};

struct fz_op {
    int type, index, arg;
};

struct fz_ops {
    struct fz_op *v;
    int n, cap;
};

struct fz_phase {
    struct fz_msg *msgs;
    int nmsgs;
    struct fz_recv *recvs; /* in posting order on each rank */
    int nrecvs;
    struct fz_part *parts;
    int nparts;
    int has_coll[3]; /* after step 1, after step 3, at the end */
    struct fz_coll coll[3];
    int complete;                         /* enum fz_complete */
    struct fz_ops *step1, *step3, *step5; /* per rank */
    long *bsend_bytes;                    /* per rank: bytes + overhead of its buffered sends */
};

struct fz_program {
    uint64_t seed;
    int nprocs;
    int nphases;
    struct fz_phase *phases;
};

struct fz_limits {
    int max_msgs;   /* per phase */
    long max_bytes; /* per phase, all ranks */
    int max_phases;
    int partitioned; /* the MPI has partitioned communication */
    long bsend_overhead;
};

void fz_generate(struct fz_program *p, uint64_t seed, int nprocs, const struct fz_limits *lim);
void fz_free(struct fz_program *p);
/* Drop the messages of phase `phase` whose flag in `drop` (one per message)
 * is set, with the receives they match; every other receive keeps its
 * message (MPI's rules pick the first match, which was not a dropped one).
 * For cutting a finding down (tests/fuzz/reduce.py). */
void fz_drop(struct fz_program *p, int phase, const char *drop);
/* The program in words, for a finding's report. */
void fz_dump(FILE *f, const struct fz_program *p);

/* The payload: 8-byte words, little endian; word 0 is the id. */
uint64_t fz_word(uint64_t id, size_t i);
/* The hash of a payload stream, as fz_hash_add over its bytes computes it. */
uint64_t fz_payload_hash(uint64_t id, size_t bytes);

struct fz_hash {
    uint64_t h, pending;
    size_t n;
};
void fz_hash_init(struct fz_hash *h);
void fz_hash_add(struct fz_hash *h, const void *data, size_t len);
uint64_t fz_hash_end(struct fz_hash *h);

extern const char *const fz_send_names[FZ_NSEND_KINDS];
extern const char *const fz_recv_names[FZ_NRECV_KINDS];
extern const char *const fz_coll_names[FZ_NCOLL];
extern const char *const fz_complete_names[FZ_NCOMPLETE];

#endif
