/*
 * thread.c - a pool of worker threads on POSIX threads or Win32 threads
 * (thread.h).
 *
 * The Win32 branch is compiled only on Windows; the Linux builds check the
 * POSIX branch.  Both give the pool the same few primitives: a thread with
 * UN_THREAD_STACK of stack, a mutex and condition variables, the process
 * id.
 *
 * Hand-off.  The caller publishes a call (fn, args, size, jobs) under the
 * mutex, bumps the generation and wakes the workers; a worker whose index
 * has a job in that generation runs it outside the mutex and, under it,
 * counts itself done; the caller runs job 0 (and the jobs no worker has),
 * then waits until none is pending.  The mutex orders every write of a call
 * before the workers' reads and every job's writes before the caller's
 * return, so jobs need no lock of their own.  No thread is started or
 * joined per call: a call costs two wake-ups.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L   /* clock_gettime, getpid under -std=c99 */
#endif

#include "thread.h"

#include <stdlib.h>

#if defined(_WIN32)

#include <windows.h>
#include <process.h>

typedef HANDLE os_thread;
typedef CRITICAL_SECTION os_mutex;
typedef CONDITION_VARIABLE os_cond;
typedef DWORD os_pid;

static int os_start(os_thread *t, unsigned (__stdcall *main_fn)(void *), void *arg)
{
    uintptr_t h = _beginthreadex(NULL, (unsigned)UN_THREAD_STACK, main_fn, arg, 0, NULL);
    if (h == 0) return 0;
    *t = (HANDLE)h;
    return 1;
}

static void os_join(os_thread t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}

static int  os_mutex_init(os_mutex *m) { InitializeCriticalSection(m); return 1; }
static void os_mutex_destroy(os_mutex *m) { DeleteCriticalSection(m); }
static void os_lock(os_mutex *m) { EnterCriticalSection(m); }
static void os_unlock(os_mutex *m) { LeaveCriticalSection(m); }
static int  os_cond_init(os_cond *c) { InitializeConditionVariable(c); return 1; }
static void os_cond_destroy(os_cond *c) { (void)c; }
static void os_wait(os_cond *c, os_mutex *m) { SleepConditionVariableCS(c, m, INFINITE); }
static void os_wake_one(os_cond *c) { WakeConditionVariable(c); }
static void os_wake_all(os_cond *c) { WakeAllConditionVariable(c); }
static os_pid os_process(void) { return GetCurrentProcessId(); }

#define WORKER_MAIN static unsigned __stdcall worker_main(void *arg)
#define WORKER_RETURN return 0

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
#include <unistd.h>

typedef pthread_t os_thread;
typedef pthread_mutex_t os_mutex;
typedef pthread_cond_t os_cond;
typedef pid_t os_pid;

static int os_start(os_thread *t, void *(*main_fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int ok;
    if (pthread_attr_init(&attr) != 0) return 0;
    pthread_attr_setstacksize(&attr, UN_THREAD_STACK);   /* the default stays on failure */
    ok = pthread_create(t, &attr, main_fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

static void os_join(os_thread t) { pthread_join(t, NULL); }
static int  os_mutex_init(os_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static void os_mutex_destroy(os_mutex *m) { pthread_mutex_destroy(m); }
static void os_lock(os_mutex *m) { pthread_mutex_lock(m); }
static void os_unlock(os_mutex *m) { pthread_mutex_unlock(m); }
static int  os_cond_init(os_cond *c) { return pthread_cond_init(c, NULL) == 0; }
static void os_cond_destroy(os_cond *c) { pthread_cond_destroy(c); }
static void os_wait(os_cond *c, os_mutex *m) { pthread_cond_wait(c, m); }
static void os_wake_one(os_cond *c) { pthread_cond_signal(c); }
static void os_wake_all(os_cond *c) { pthread_cond_broadcast(c); }
static os_pid os_process(void) { return getpid(); }

#define WORKER_MAIN static void *worker_main(void *arg)
#define WORKER_RETURN return NULL

double un_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif

typedef struct worker {
    struct un_pool *pool;
    int32_t         job;        /* the job it runs: its index + 1 */
} worker;

struct un_pool {
    int32_t    n;               /* jobs at once: the workers asked for + 1 */
    int32_t    started;         /* workers running: os_thread[0..started) */
    os_thread *thread;
    worker    *workers;
    os_pid     owner;           /* the process that started them */
    os_mutex   mu;              /* guards every field below */
    os_cond    go;              /* a new call, or quit */
    os_cond    done;            /* pending reached 0 */
    int        have_mu, have_go, have_done;
    uint64_t   generation;      /* calls published so far */
    int32_t    jobs;            /* the current call's jobs */
    int32_t    pending;         /* its workers' jobs not yet done */
    un_job_fn  fn;
    char      *args;
    size_t     size;
    int        quit;
};

WORKER_MAIN
{
    worker *w = (worker *)arg;
    un_pool *p = w->pool;
    uint64_t seen = 0;
    os_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen) os_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->generation;
        if (w->job < p->jobs) {
            un_job_fn fn = p->fn;
            void *job_arg = p->args + (size_t)w->job * p->size;
            os_unlock(&p->mu);
            fn(job_arg);
            os_lock(&p->mu);
            if (--p->pending == 0) os_wake_one(&p->done);
        }
    }
    os_unlock(&p->mu);
    WORKER_RETURN;
}

un_status un_pool_new(int32_t n, un_pool **out)
{
    un_pool *p;
    int32_t i;
    *out = NULL;
    if (n < 1) return UN_EINVAL;
    if (!(p = (un_pool *)calloc(1, sizeof *p))) return UN_ENOMEM;
    p->n = n;
    p->owner = os_process();
    p->thread = n > 1 ? (os_thread *)malloc((size_t)(n - 1) * sizeof *p->thread) : NULL;
    p->workers = n > 1 ? (worker *)malloc((size_t)(n - 1) * sizeof *p->workers) : NULL;
    if (n > 1 && (!p->thread || !p->workers)) { un_pool_free(p); return UN_ENOMEM; }
    p->have_mu = os_mutex_init(&p->mu);
    p->have_go = p->have_mu && os_cond_init(&p->go);
    p->have_done = p->have_go && os_cond_init(&p->done);
    if (!p->have_done) { un_pool_free(p); return UN_ENOMEM; }
    /* workers start in order: started counts a prefix of them */
    for (i = 0; i + 1 < n; i++) {
        p->workers[i].pool = p;
        p->workers[i].job = i + 1;
        if (!os_start(p->thread + i, worker_main, p->workers + i)) break;
        p->started++;
    }
    *out = p;
    return UN_OK;
}

void un_pool_free(un_pool *p)
{
    int32_t i;
    if (!p) return;
    /* (a forked child has no workers to stop: they are the parent's) */
    if (p->started > 0 && os_process() == p->owner) {
        os_lock(&p->mu);
        p->quit = 1;
        os_wake_all(&p->go);
        os_unlock(&p->mu);
        for (i = 0; i < p->started; i++) os_join(p->thread[i]);
    }
    if (p->have_done) os_cond_destroy(&p->done);
    if (p->have_go) os_cond_destroy(&p->go);
    if (p->have_mu) os_mutex_destroy(&p->mu);
    free(p->thread);
    free(p->workers);
    free(p);
}

int32_t un_pool_workers(const un_pool *p)
{
    /* a child forked from the owner inherits the pool, not its threads */
    return p && os_process() == p->owner ? p->started : 0;
}

void un_pool_run(un_pool *p, un_job_fn fn, void *args, size_t size, int32_t n)
{
    int32_t i, workers = un_pool_workers(p), handed;
    if (n < 1) return;
    handed = n - 1 < workers ? n - 1 : workers;   /* jobs 1..handed go to workers */
    if (handed > 0) {
        os_lock(&p->mu);
        p->fn = fn;
        p->args = (char *)args;
        p->size = size;
        p->jobs = handed + 1;
        p->pending = handed;
        p->generation++;
        os_wake_all(&p->go);
        os_unlock(&p->mu);
    }
    fn(args);
    for (i = handed + 1; i < n; i++) fn((char *)args + (size_t)i * size);
    if (handed > 0) {
        os_lock(&p->mu);
        while (p->pending > 0) os_wait(&p->done, &p->mu);
        os_unlock(&p->mu);
    }
}
