/*
 * fuzz_main.c - runs the fuzz target of fuzz_core.c without libFuzzer.
 *
 *   fuzz_main [--random N] [--seed S] [--max-len L] [--save I PATH] [FILE | DIR]...
 *
 * Each FILE, and each file in each DIR, is one input (an artifact or a
 * corpus of libFuzzer, to replay it under gcc).  Then N inputs of random
 * length up to L (default 256) and random bytes from seed S.  A broken
 * promise aborts inside the target; the last line on stderr names the
 * input, and `--save I PATH` writes random input I to PATH instead of
 * running anything.  On success it prints "fuzz_main: ... 0 failed", as
 * the C unit tests do.  Inputs that found a bug become named unit tests
 * (the decoding of bytes changes whenever the target does).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f) { fprintf(stderr, "fuzz_main: cannot open %s\n", path); return 1; }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        fprintf(stderr, "fuzz_main: cannot read %s\n", path);
        return 1;
    }
    buf = (uint8_t *)malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        fprintf(stderr, "fuzz_main: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    fprintf(stderr, "fuzz_main: input %s\n", path);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory, in name order (a fixed order keeps
 * runs repeatable). */
static int run_dir(const char *dir, long *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int bad = 0;
    if (!d) { fprintf(stderr, "fuzz_main: cannot open %s\n", dir); return 1; }
    while ((e = readdir(d)) != NULL) {
        char *path;
        struct stat st;
        if (e->d_name[0] == '.') continue;
        path = (char *)malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!path) { bad = 1; break; }
        sprintf(path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) { free(path); continue; }
        if (n == cap) {
            char **grown = (char **)realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!grown) { free(path); bad = 1; break; }
            names = grown;
        }
        names[n++] = path;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    for (i = 0; i < n; i++) {
        if (!bad && !(bad = run_file(names[i]))) ++*count;
        free(names[i]);
    }
    free(names);
    return bad;
}

static uint64_t next_(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

int main(int argc, char **argv)
{
    long random_inputs = 0, files = 0, i, max_len = 256, save_index = -1;
    const char *save_path = NULL;
    uint64_t seed = 1;
    uint8_t *buf;
    int k;
    for (k = 1; k < argc; k++) {
        struct stat st;
        if (!strcmp(argv[k], "--random") && k + 1 < argc) random_inputs = atol(argv[++k]);
        else if (!strcmp(argv[k], "--seed") && k + 1 < argc) seed = strtoull(argv[++k], NULL, 10);
        else if (!strcmp(argv[k], "--max-len") && k + 1 < argc) max_len = atol(argv[++k]);
        else if (!strcmp(argv[k], "--save") && k + 2 < argc) save_index = atol(argv[++k]), save_path = argv[++k];
        else if (stat(argv[k], &st) == 0 && S_ISDIR(st.st_mode)) { if (run_dir(argv[k], &files)) return 1; }
        else if (run_file(argv[k])) return 1;
        else files++;
    }
    if (max_len < 1) max_len = 1;
    if (!(buf = (uint8_t *)malloc((size_t)max_len))) return 1;
    if (save_path && save_index >= random_inputs) random_inputs = save_index + 1;
    seed = seed * 0x9E3779B97F4A7C15ULL + 1;   /* never zero */
    for (i = 0; i < random_inputs; i++) {
        size_t n = 1 + (size_t)(next_(&seed) % (uint64_t)max_len), j;
        for (j = 0; j < n; j++) buf[j] = (uint8_t)(next_(&seed) >> 56);
        if (save_path) {
            FILE *f;
            if (i != save_index) continue;
            f = fopen(save_path, "wb");
            k = !f || fwrite(buf, 1, n, f) != n;
            if (f && fclose(f) != 0) k = 1;
            free(buf);
            return k;
        }
        fprintf(stderr, "fuzz_main: random input %ld\n", i);
        LLVMFuzzerTestOneInput(buf, n);
    }
    free(buf);
    printf("fuzz_main: %ld inputs from files, %ld random inputs: 0 failed\n", files, random_inputs);
    return 0;
}
