/*
 * overlap.c - does a message move while its receiver (or sender) computes?
 *
 * Part 1 (seed 001, ch. 3.2, listing 3.1): rank 0 posts MPI_Irecv of a large
 * message, computes for w ms, then MPI_Wait; rank 1 sends it with MPI_Send.
 * The total time T(w) is drawn against w: with real overlap T stays at the
 * transfer time t_c until w passes it (the "kink" at w = t_c), without it
 * T = t_c + w. The same with rank 0 sending (MPI_Isend, compute, MPI_Wait)
 * and rank 1 receiving: the seed found Open MPI 1.4 overlapping sends but
 * not receives. hidden_*_pct: the share of min(t_c, w) hidden, the median
 * over the work times w > 0.
 *
 * Part 2 (seed 004, the Sandia MPI benchmark's mpi_overhead): for an eager
 * and a rendezvous size, receive side and send side: base_t, the time of a
 * post + wait with no work; then work of max(2 base_t, 200 us); work_t, the
 * work alone; iter_t, post + work + wait. overhead = iter_t - work_t (the
 * time the message costs the process beyond its work) and availability =
 * 1 - overhead / base_t (1: the transfer was entirely hidden, 0: none of it).
 *
 * Every message's every byte is checked after the timing (a pattern of its
 * repetition); every time is the median of `reps` repetitions. Processes
 * beyond the first two only wait at the barriers.
 *
 * Usage: overlap [bytes=B] [reps=R] [eager=E] [rndv=R] [works=0,1,2,4,8,16]
 * Metrics (rank 0): total_recv_<w>ms, total_send_<w>ms (ms), hidden_recv_pct,
 * hidden_send_pct, avail_{recv,send}_<size>B, overhead_{recv,send}_<size>B (us).
 */
#include "app_common.h"

#define USAGE     "[bytes=B] [reps=R] [eager=E] [rndv=R] [works=W1,W2,...]"
#define MAX_REPS  51
#define MAX_WORKS 16

static const char *prog = "overlap";
static int rank;
static long checked_bad;

static unsigned char pattern(size_t i, int rep)
{
    return (unsigned char)(i * 7 + (size_t)rep * 13 + 1);
}

/* One repetition between ranks 0 and 1: rank 0 posts (receive when `recv`,
 * else send), computes `work` s and waits; rank 1 does the blocking partner
 * call. Returns rank 0's time (0 elsewhere). */
static double one(unsigned char *buf, size_t bytes, int recv, double work, int rep)
{
    double t = 0.0;
    if (rank == (recv ? 1 : 0))
        for (size_t i = 0; i < bytes; i++)
            buf[i] = pattern(i, rep);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        double t0 = bench_now();
        if (recv)
            MPI_Irecv(buf, (int)bytes, MPI_BYTE, 1, rep, MPI_COMM_WORLD, &req);
        else
            MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, rep, MPI_COMM_WORLD, &req);
        if (work > 0.0)
            bench_compute_for(work);
        MPI_Wait(&req, &st);
        t = bench_now() - t0;
    } else if (rank == 1) {
        if (recv)
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, rep, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, rep, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == (recv ? 0 : 1))
        for (size_t i = 0; i < bytes; i++)
            checked_bad += buf[i] != pattern(i, rep);
    return t;
}

/* The median over `reps` of one() (rank 0's figure). */
static double median_time(unsigned char *buf, size_t bytes, int recv, double work, int reps)
{
    double t[MAX_REPS];
    one(buf, bytes, recv, work, 0); /* warm-up */
    for (int r = 0; r < reps; r++)
        t[r] = one(buf, bytes, recv, work, r + 1);
    return bench_median(t, reps);
}

/* Parses "0,1,2" into works (ms); returns the count, or -1. */
static int parse_works(const char *text, double *works)
{
    int n = 0;
    for (const char *p = text; *p && n < MAX_WORKS;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 10000 || (*end && *end != ','))
            return -1;
        works[n++] = (double)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    int bytes = 8 << 20, reps = 5, eager = 1024, rndv = 1 << 20, size;
    const char *works_text = "0,1,2,4,8,16";
    struct app_opt opts[] = {
        {"bytes", APP_INT, &bytes, 1, 1 << 30, NULL}, {"reps", APP_INT, &reps, 1, MAX_REPS, NULL},
        {"eager", APP_INT, &eager, 1, 1 << 30, NULL}, {"rndv", APP_INT, &rndv, 1, 1 << 30, NULL},
        {"works", APP_WORD, &works_text, 0, 0, NULL},
    };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    app_parse(prog, USAGE, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    double works[MAX_WORKS];
    int nworks = parse_works(works_text, works);
    if (nworks < 1 || works[0] != 0.0)
        app_usage_exit(prog, USAGE, "works: expected a list of whole ms from 0, e.g. 0,1,2,4");
    if (size < 2)
        app_usage_exit(prog, USAGE, "needs at least 2 processes");
    size_t largest = (size_t)(bytes > rndv ? bytes : rndv);
    unsigned char *buf = malloc(largest > (size_t)eager ? largest : (size_t)eager);
    if (!buf) {
        fprintf(stderr, "%s: no memory for %zu bytes\n", prog, largest);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("# overlap: %d-byte message, work %s ms; SMB sizes %d and %d bytes; %d reps\n",
               bytes, works_text, eager, rndv, reps);

    /* Part 1: total time against work. */
    const char *side_name[2] = {"send", "recv"};
    double total[2][MAX_WORKS], hidden[2];
    for (int recv = 1; recv >= 0; recv--) {
        double share[MAX_WORKS];
        int nshare = 0;
        for (int w = 0; w < nworks; w++)
            total[recv][w] = median_time(buf, (size_t)bytes, recv, works[w] * 1e-3, reps);
        double t_c = total[recv][0]; /* the transfer alone (work 0) */
        for (int w = 0; w < nworks; w++)
            if (works[w] > 0) {
                double wk = works[w] * 1e-3, lim = fmin(t_c, wk);
                double s = lim > 0 ? (t_c + wk - total[recv][w]) / lim : 0.0;
                share[nshare++] = fmax(0.0, fmin(1.0, s));
            }
        hidden[recv] = nshare ? bench_median(share, nshare) * 100.0 : 0.0;
    }

    /* Part 2: SMB overhead and availability. An eager size's overhead is a
     * fraction of a microsecond: more repetitions than part 1's, and the
     * work alone timed as often, so that one late wake-up reads as noise. */
    int smb_sizes[2] = {eager, rndv}, smb_reps = reps * 5 < MAX_REPS ? reps * 5 : MAX_REPS;
    double avail[2][2], overhead[2][2];
    for (int recv = 1; recv >= 0; recv--)
        for (int z = 0; z < 2; z++) {
            double base = median_time(buf, (size_t)smb_sizes[z], recv, 0.0, smb_reps);
            MPI_Bcast(&base, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            double work = fmax(2.0 * base, 200e-6), work_times[MAX_REPS];
            for (int r = 0; r < smb_reps; r++) {
                double t0 = bench_now();
                bench_compute_for(work);
                work_times[r] = bench_now() - t0;
            }
            double work_t = bench_median(work_times, smb_reps);
            double iter = median_time(buf, (size_t)smb_sizes[z], recv, work, smb_reps);
            overhead[recv][z] = iter - work_t;
            avail[recv][z] = base > 0 ? 1.0 - overhead[recv][z] / base : 0.0;
        }

    long bad_all = 0;
    MPI_Allreduce(&checked_bad, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad_all)
        fprintf(stderr, "%s: %ld received bytes differ from what was sent\n", prog, bad_all);
    int bad = app_check(MPI_COMM_WORLD, prog, "every byte of every message", bad_all != 0);
    if (!bad) {
        char name[64];
        for (int recv = 1; recv >= 0; recv--) {
            for (int w = 0; w < nworks; w++) {
                snprintf(name, sizeof name, "total_%s_%.0fms", side_name[recv], works[w]);
                app_metric(name, total[recv][w] * 1e3, "ms", "lower");
            }
            snprintf(name, sizeof name, "hidden_%s_pct", side_name[recv]);
            app_metric(name, hidden[recv], "%", "higher");
        }
        for (int recv = 1; recv >= 0; recv--)
            for (int z = 0; z < 2; z++) {
                snprintf(name, sizeof name, "avail_%s_%dB", side_name[recv], smb_sizes[z]);
                app_metric(name, avail[recv][z], "fraction", "higher");
                snprintf(name, sizeof name, "overhead_%s_%dB", side_name[recv], smb_sizes[z]);
                app_metric(name, overhead[recv][z] * 1e6, "us", "lower");
            }
    }
    free(buf);
    return app_finish(bad);
}
