/*
 * thread.h - the little the engine needs from the operating system's
 * threads (thread.c): run n jobs at once and wait for all of them (fork and
 * join), and a monotonic clock for statistics.  POSIX threads everywhere
 * but Windows, Win32 threads there.  Not part of the public interface.
 */
#ifndef UVNEST_THREAD_H
#define UVNEST_THREAD_H

#include <stddef.h>
#include <stdint.h>

/* Stack of each thread started: the main thread's usual size on Linux
 * (macOS gives secondary threads 512 KiB and Windows 1 MiB by default; the
 * engine's recursion is shallow, but a chain runs the same code the
 * caller's thread runs, and should not have less room). */
#define UN_THREAD_STACK ((size_t)8 << 20)

typedef void (*un_job_fn)(void *arg);

/* Run fn on the n arguments args, args + size, ..., args + (n-1) size at
 * once: the first in the calling thread, the others each in a thread of
 * its own, and return when every one has returned.  A thread that cannot
 * be started (no memory, a process limit) runs its job in the calling
 * thread afterwards instead: the jobs all run either way, and what they
 * compute does not depend on which thread ran them. */
void un_fork_join(un_job_fn fn, void *args, size_t size, int32_t n);

/* A flag one thread sets and others read, ordered (a mutex, or the
 * Windows interlocked calls): what a job may poll to stop early. */
typedef struct un_flag un_flag;

un_flag *un_flag_new(void);          /* cleared; NULL when out of memory */
void     un_flag_free(un_flag *f);
void     un_flag_set(un_flag *f, int value);
int      un_flag_get(un_flag *f);

/* Seconds on a monotonic clock (for statistics only: nothing the engine
 * decides may depend on it). */
double un_clock_seconds(void);

#endif /* UVNEST_THREAD_H */
