/*
 * Fastbox rings and doorbells between two real processes (fork, shared
 * anonymous memory), no MPI: every message arrives once, in order, with its
 * payload, also when the ring fills up and when a message spans several
 * cells (sizes 0 to MAX_SIZE, wrapping around the ring's end), and when the
 * payload is made of words that look like the sequence numbers the receiver
 * will wait for in the cells it covers (stale payload must never pass for a
 * message); a receiver that sleeps on its
 * doorbell is always woken (a lost wake-up would hang this test until CTest's
 * timeout). With the smallest ring the engine uses (16 KiB) and the largest
 * it chooses (128 KiB).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shm/fastbox.h"

enum { MESSAGES = 300000, BURSTS = 200, MAX_SIZE = 4096 };

static uint32_t ncells; /* of the ring under test */

/* Mostly one-cell messages, every 7th one longer. */
static uint32_t size_of(uint32_t n)
{
    return n % 7 ? n % (WISP_FASTBOX_INLINE + 1) : n % (MAX_SIZE + 1);
}

/* The payload of message n, put at ring position `at` (or, when the sender
 * went back to the ring's first cell, one lap on): every 4-byte word but
 * the first holds the sequence number that a later lap waits for in the
 * word's cell (odd messages), or a byte pattern (even ones). The first word
 * says `at`, so that the receiver can check. */
static void fill(unsigned char *buf, uint32_t n, uint32_t size, uint32_t at)
{
    for (uint32_t i = 0; i < size; i++)
        buf[i] = (unsigned char)(n * 31 + i);
    for (uint32_t i = 4; n % 2 && i + 4 <= size; i += 4) {
        uint32_t cell = at + (WISP_FASTBOX_HEADER + i) / WISP_FASTBOX_CELL;
        uint32_t looks_valid = cell + ncells + 1;
        memcpy(buf + i, &looks_valid, 4);
    }
    if (n % 2 && size >= 4)
        memcpy(buf, &at, 4);
}

static void send_all(struct wisp_fastbox_ring *ring, struct wisp_doorbell *bell, int pause_every)
{
    unsigned char buf[MAX_SIZE];
    for (uint32_t n = 0; n < MESSAGES; n++) {
        uint32_t size = size_of(n);
        fill(buf, n, size, ring->sent);
        while (!wisp_fastbox_put(ring, n, buf, size))
            sched_yield(); /* full: the receiver is behind */
        wisp_doorbell_ring(bell);
        if (pause_every && n % pause_every == 0)
            nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL); /* let the receiver sleep */
    }
}

static bool has_message(void *ring)
{
    return wisp_fastbox_waiting(ring);
}

/* Returns the number of errors. */
static int receive_all(struct wisp_fastbox_ring *ring, struct wisp_doorbell *bell, bool sleep)
{
    int errors = 0;
    unsigned char want[MAX_SIZE], got[MAX_SIZE];
    for (uint32_t n = 0; n < MESSAGES; n++) {
        const struct wisp_fastbox_cell *cell;
        while (!(cell = wisp_fastbox_peek(ring))) {
            if (sleep)
                wisp_doorbell_wait(bell, has_message, ring);
        }
        uint32_t size = size_of(n);
        memset(got, 0, size);
        if (cell->size == size) /* in two parts, as a receiver with a small buffer would */
            wisp_fastbox_read(ring, cell, got, 0, size / 2),
                wisp_fastbox_read(ring, cell, got + size / 2, size / 2, size - size / 2);
        uint32_t at = 0;
        if (size >= 4)
            memcpy(&at, got, 4);
        fill(want, n, size, at);
        if (cell->match != n || cell->size != size || memcmp(got, want, size)) {
            if (errors++ < 5)
                fprintf(stderr, "message %u: got match %llu size %u\n", n,
                        (unsigned long long)cell->match, cell->size);
        }
        wisp_fastbox_release(ring);
    }
    return errors + (wisp_fastbox_peek(ring) != NULL); /* nothing extra */
}

static int run(const char *name, bool sleep, int pause_every)
{
    size_t bytes = wisp_fastbox_region_size(2, ncells);
    void *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    struct wisp_fastbox_ring *ring = wisp_fastbox_ring(region, 2, ncells, 1, 0);
    struct wisp_doorbell *bell = wisp_fastbox_doorbell(region, 2, ncells, 0);
    pid_t child = fork();
    if (child == 0) {
        wisp_fastbox_join(region, 2, ncells, 1);
        send_all(ring, bell, pause_every);
        _exit(0);
    }
    wisp_fastbox_join(region, 2, ncells, 0);
    int errors = receive_all(ring, bell, sleep);
    int status;
    waitpid(child, &status, 0);
    errors += !WIFEXITED(status) || WEXITSTATUS(status);
    printf("%s, ring of %u cells: %d messages, %s\n", name, ncells, MESSAGES,
           errors ? "FAILED" : "ok");
    munmap(region, bytes);
    return errors;
}

int main(void)
{
    int errors = 0;
    for (ncells = 512; ncells <= 4096; ncells *= 8) {
        errors += run("spinning receiver", false, 0);
        errors += run("sleeping receiver, sender in bursts", true, MESSAGES / BURSTS);
        errors += run("sleeping receiver, continuous sender", true, 0);
    }
    return errors != 0;
}
