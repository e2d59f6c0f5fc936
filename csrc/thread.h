/*
 * thread.h - the little the engine needs from the operating system's
 * threads (thread.c): a pool of worker threads kept between calls, which
 * runs n jobs at once and waits for all of them, and a monotonic clock for
 * statistics.  POSIX threads everywhere but Windows, Win32 threads there.
 * Not part of the public interface.
 */
#ifndef UVNEST_THREAD_H
#define UVNEST_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include "uvnest.h"

/* Stack of each thread started: the main thread's usual size on Linux
 * (macOS gives secondary threads 512 KiB and Windows 1 MiB by default; the
 * engine's recursion is shallow, but a chain runs the same code the
 * caller's thread runs, and should not have less room). */
#define UN_THREAD_STACK ((size_t)8 << 20)

typedef void (*un_job_fn)(void *arg);

/* A pool: n - 1 worker threads, started once and asleep between calls,
 * which with the calling thread run up to n jobs at once.  One thread
 * uses a pool at a time (the chains' owner). */
typedef struct un_pool un_pool;

/* A pool for n jobs at once (n >= 1; n = 1 starts no thread).  UN_ENOMEM
 * when its memory or its lock cannot be had; a worker that cannot be
 * started (a process limit) is not an error: its jobs run in the calling
 * thread (un_pool_run), and what they compute does not change. */
un_status un_pool_new(int32_t n, un_pool **out);
/* Stops and joins the workers (none may be running a job: un_pool_run has
 * returned), then frees the pool.  NULL is accepted. */
void      un_pool_free(un_pool *p);
/* Workers running (at most n - 1; 0 in a forked child, which has none). */
int32_t   un_pool_workers(const un_pool *p);
/* Run fn on the n arguments args, args + size, ..., args + (n-1) size at
 * once: the first in the calling thread, job i in worker i - 1, and return
 * when every one has returned.  Jobs beyond the workers run in the calling
 * thread after the first, in order. */
void      un_pool_run(un_pool *p, un_job_fn fn, void *args, size_t size, int32_t n);

/* The engine's cancel flags are volatile ints one thread sets while others
 * poll them (uvnest.h): a race by design, harmless since a flag only ever
 * goes from 0 to 1 while it is polled and the reader acts on it at its next
 * check.  ThreadSanitizer is told so (every other access stays checked). */
#if defined(__SANITIZE_THREAD__)
void AnnotateBenignRaceSized(const char *file, int line, const volatile void *mem, long size, const char *desc);
#define UN_POLLED_FLAG(p) AnnotateBenignRaceSized(__FILE__, __LINE__, (p), (long)sizeof *(p), "cancel flag")
#else
#define UN_POLLED_FLAG(p) ((void)(p))
#endif

/* Seconds on a monotonic clock (for statistics only: nothing the engine
 * decides may depend on it). */
double un_clock_seconds(void);

#endif /* UVNEST_THREAD_H */
