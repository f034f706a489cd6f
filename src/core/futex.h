/*
 * The futex system call, which glibc does not wrap: how wisp's waits sleep
 * in the kernel until a peer or another thread rings.
 */
#ifndef WISP_CORE_FUTEX_H
#define WISP_CORE_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* FUTEX_WAIT(_PRIVATE): sleeps while *word == value, at most timeout_ns (< 0:
 * no limit). FUTEX_WAKE(_PRIVATE): wakes up to value sleepers. A word shared
 * between processes must use the forms without _PRIVATE. */
static inline long wisp_futex(_Atomic uint32_t *word, int op, uint32_t value, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout_ns < 0 ? NULL : &ts, NULL, 0);
}

#endif
