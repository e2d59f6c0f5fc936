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
