/*
 * thread.c - fork and join on POSIX threads or Win32 threads (thread.h).
 *
 * The Win32 branch is compiled only on Windows; the Linux builds check the
 * POSIX branch.  Both do the same: one thread per job but the first, each
 * with UN_THREAD_STACK of stack, joined in order; a job whose thread did
 * not start runs in the calling thread after the first.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime under -std=c99 */
#endif

#include "thread.h"

#include <stdlib.h>

typedef struct {
    un_job_fn fn;
    void     *arg;
} job;

#if defined(_WIN32)

#include <windows.h>
#include <process.h>

typedef HANDLE os_thread;

static unsigned __stdcall trampoline(void *p)
{
    job *j = (job *)p;
    j->fn(j->arg);
    return 0;
}

static int os_start(os_thread *t, job *j)
{
    uintptr_t h = _beginthreadex(NULL, (unsigned)UN_THREAD_STACK, trampoline, j, 0, NULL);
    if (h == 0) return 0;
    *t = (HANDLE)h;
    return 1;
}

static void os_join(os_thread t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}

double un_clock_seconds(void)
{
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}

#else

#include <pthread.h>
#include <time.h>

typedef pthread_t os_thread;

static void *trampoline(void *p)
{
    job *j = (job *)p;
    j->fn(j->arg);
    return NULL;
}

static int os_start(os_thread *t, job *j)
{
    pthread_attr_t attr;
    int ok;
    if (pthread_attr_init(&attr) != 0) return 0;
    pthread_attr_setstacksize(&attr, UN_THREAD_STACK);   /* the default stays on failure */
    ok = pthread_create(t, &attr, trampoline, j) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void os_join(os_thread t)
{
    pthread_join(t, NULL);
}

double un_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif

void un_fork_join(un_job_fn fn, void *args, size_t size, int32_t n)
{
    /* per job: its thread, and whether it started */
    os_thread *threads = n > 1 ? (os_thread *)malloc((size_t)(n - 1) * sizeof *threads) : NULL;
    job *jobs = n > 1 ? (job *)malloc((size_t)(n - 1) * sizeof *jobs) : NULL;
    unsigned char *started = n > 1 ? (unsigned char *)calloc((size_t)n - 1, 1) : NULL;
    int32_t i;
    if (n < 1) return;
    for (i = 1; i < n && threads && jobs && started; i++) {
        jobs[i - 1].fn = fn;
        jobs[i - 1].arg = (char *)args + (size_t)i * size;
        started[i - 1] = (unsigned char)os_start(threads + i - 1, jobs + i - 1);
    }
    fn(args);
    for (i = 1; i < n; i++) {
        if (started && started[i - 1]) os_join(threads[i - 1]);
        else fn((char *)args + (size_t)i * size);
    }
    free(threads);
    free(jobs);
    free(started);
}
