/*
 * fork() after MPI_Init: the child gets a private copy of the shared heap,
 * as of the fork, as it would of any memory. argv[1] says what the heap
 * serves here: "on" (malloc and MPI_Alloc_mem), "alloc_mem" (only
 * MPI_Alloc_mem: the sanitizer's malloc comes first) or "off" (WISP_SHM=off).
 *
 * The child sees the parent's data as of the fork, also a block the parent
 * changes right after it; its writes (into malloc'd memory, into memory
 * from MPI_Alloc_mem) never reach the parent; it can malloc, realloc and
 * free, heap blocks too. The parent's heap is still shared with the node
 * afterwards (a message between two heap buffers), and a fork after
 * MPI_Finalize behaves the same. Forks while another thread allocates
 * neither deadlock nor break the child's heap.
 */
#include <malloc.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

enum { BIG = 4 << 20 };

/* The blocks that the parent has and the child looks at. */
struct blocks {
    char *small;        /* malloc(64) */
    unsigned char *big; /* malloc(BIG), a pattern */
    unsigned char *mem; /* MPI_Alloc_mem(BIG); NULL after MPI_Finalize */
    char *later;        /* changed by the parent right after the fork */
};

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char)(i * 131 + (size_t)seed * 7 + (i >> 12));
}

static int check_pattern(const unsigned char *p, int seed)
{
    for (size_t i = 0; i < BIG; i += 997)
        if (p[i] != pattern(i, seed))
            return 0;
    return p[BIG - 1] == pattern(BIG - 1, seed);
}

/* Child: returns its exit status, 0 when every check held. */
static int child(struct blocks *b, int go)
{
    int bad = 0;
    char byte;
    if (read(go, &byte, 1) != 1) /* the parent has changed b->later */
        return 90;
    bad |= strcmp(b->small, "parent") != 0;
    bad |= (strcmp(b->later, "before fork") != 0) << 1; /* a copy as of the fork */
    bad |= (!check_pattern(b->big, 1)) << 2;
    bad |= (b->mem && !check_pattern(b->mem, 2)) << 3;
    strcpy(b->small, "CHILD!"); /* must not reach the parent */
    memset(b->big, 0xee, BIG);
    if (b->mem)
        memset(b->mem, 0xdd, BIG);
    strcpy(b->later, "written by the child");
    bad |= (strcmp(b->small, "CHILD!") != 0) << 4;

    /* The child allocates as any process would. */
    char *fresh = malloc(1 << 20);
    if (!fresh)
        return 91;
    memset(fresh, 'c', 1 << 20);
    bad |= (fresh[12345] != 'c') << 5;
    char *grown = realloc(b->small, 1 << 16); /* a heap block moves to the child's memory */
    bad |= (!grown || strcmp(grown, "CHILD!") != 0) << 6;
    bad |= (malloc_usable_size(b->big) < BIG) << 7;
    free(grown);
    free(b->big); /* the parent's block: no harm to the parent's allocator */
    free(fresh);
    for (int i = 0; i < 1000; i++) { /* a busy allocator after all */
        void *p = malloc((size_t)(i % 97) * 64 + 1);
        if (!p)
            return 92;
        memset(p, i, (size_t)(i % 97) * 64 + 1);
        free(p);
    }
    return bad;
}

/* Forks, lets the child look, checks that the parent's blocks are intact. */
static void fork_and_check(struct blocks *b, const char *when)
{
    strcpy(b->later, "before fork");
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(pipefd[1]);
        _exit(child(b, pipefd[0]));
    }
    close(pipefd[0]);
    strcpy(b->later, "after fork"); /* before the child looks */
    CHECK(write(pipefd[1], "x", 1) == 1);
    close(pipefd[1]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "fork_heap %s: child status %#x (exit bits %d)\n", when, status,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(!strcmp(b->small, "parent"));
    CHECK(!strcmp(b->later, "after fork"));
    CHECK(check_pattern(b->big, 1));
    CHECK(!b->mem || check_pattern(b->mem, 2));
}

/* Another thread allocates (new extents too) while the main thread forks:
 * no deadlock with jemalloc's fork locks, and the child's heap works. */
static atomic_bool stop;

static void *allocate(void *unused)
{
    (void)unused;
    for (size_t i = 0; !atomic_load(&stop); i++) {
        size_t n = i % 8 ? 16 + i % 4000 : (size_t)(1 + i % 3) << 20;
        char *p = malloc(n);
        if (p) {
            p[0] = p[n - 1] = 1;
            free(p);
        }
    }
    return NULL;
}

static void fork_while_allocating(void)
{
    pthread_t thread;
    atomic_store(&stop, false);
    CHECK(pthread_create(&thread, NULL, allocate, NULL) == 0);
    for (int f = 0; f < 20; f++) {
        char *mark = malloc(32);
        strcpy(mark, "mark");
        pid_t pid = fork();
        if (pid == 0) {
            char *q = malloc(1000);
            int ok = q && !strcmp(mark, "mark");
            strcpy(mark, "child");
            _exit(ok ? 0 : 1);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK(!strcmp(mark, "mark"));
        free(mark);
    }
    atomic_store(&stop, true);
    pthread_join(thread, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "on";
    int malloc_in_heap = !strcmp(mode, "on");
    int mem_in_heap = malloc_in_heap || !strcmp(mode, "alloc_mem");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct blocks b;
    b.small = malloc(64);
    b.big = malloc(BIG);
    b.later = malloc(32);
    CHECK(b.small && b.big && b.later);
    CHECK(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &b.mem) == MPI_SUCCESS);
    CHECK(wisp_heap_contains(b.small) == malloc_in_heap);
    CHECK(wisp_heap_contains(b.big) == malloc_in_heap);
    CHECK(wisp_heap_contains(b.mem) == mem_in_heap);
    strcpy(b.small, "parent");
    for (size_t i = 0; i < BIG; i++) {
        b.big[i] = pattern(i, 1);
        b.mem[i] = pattern(i, 2);
    }

    fork_and_check(&b, "after MPI_Init");
    fork_while_allocating();

    /* The heap is still the node's: a message from one heap buffer to another. */
    if (size > 1) {
        if (rank == 0)
            MPI_Send(b.mem, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        if (rank == 1) {
            unsigned char *in;
            CHECK(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &in) == MPI_SUCCESS);
            MPI_Recv(in, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(check_pattern(in, 2));
            MPI_Free_mem(in);
        }
    }
    char *shared_now = malloc(16); /* the parent still allocates from the heap */
    CHECK(shared_now && wisp_heap_contains(shared_now) == malloc_in_heap);
    free(shared_now);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Free_mem(b.mem);
    b.mem = NULL;
    MPI_Finalize();

    fork_and_check(&b, "after MPI_Finalize"); /* heap memory stays valid, and ours */
    free(b.small);
    free(b.big);
    free(b.later);
    if (rank == 0)
        printf("fork_heap %s: %d ranks: %s\n", mode, size, all || failures ? "FAILED" : "ok");
    return all || failures;
}
