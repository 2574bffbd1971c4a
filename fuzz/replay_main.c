/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plain main for every fuzz target, so that its corpus runs under ctest in
 * every build, with or without libFuzzer: the empty input first, then each
 * file named on the command line or found (recursively) in a directory named
 * there goes through LLVMFuzzerTestOneInput in a buffer of exactly its size.
 * An input that crashes the target ends the program (the sanitizers say
 * where); one that cannot be read, or for which the target returns anything
 * but 0 or -1, counts as failed.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct tally {
    long passed;
    long failed;
} tally;

static void run_path(const char *path, tally *t);

/* Run "size" bytes at "data", named "name" in messages, counting in "t". */
static void run_input(const char *name, const uint8_t *data, size_t size,
                      tally *t)
{
    int rc = LLVMFuzzerTestOneInput(data, size);
    if (rc == 0 || rc == -1) {
        t->passed++;
        return;
    }
    fprintf(stderr, "%s: the target returned %d\n", name, rc);
    t->failed++;
}

/* Run the regular file "path" of "size" bytes. */
static void run_file(const char *path, size_t size, tally *t)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = malloc(size > 0 ? size : 1);
    if (f != NULL && data != NULL && fread(data, 1, size, f) == size) {
        run_input(path, data, size, t);
    } else {
        fprintf(stderr, "%s: cannot read\n", path);
        t->failed++;
    }
    free(data);
    if (f != NULL)
        fclose(f);
}

/* Run every entry of the directory "path" except "." and "..". */
static void run_dir(const char *path, tally *t)
{
    DIR *dir = opendir(path);
    struct dirent *e;
    if (dir == NULL) {
        fprintf(stderr, "%s: cannot open\n", path);
        t->failed++;
        return;
    }
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *child;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        child = malloc(len);
        if (child == NULL) {
            fprintf(stderr, "%s: out of memory\n", path);
            t->failed++;
            continue;
        }
        snprintf(child, len, "%s/%s", path, e->d_name);
        run_path(child, t);
        free(child);
    }
    closedir(dir);
}

static void run_path(const char *path, tally *t)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: no such file or directory\n", path);
        t->failed++;
    } else if (S_ISDIR(st.st_mode)) {
        run_dir(path, t);
    } else if (S_ISREG(st.st_mode)) {
        run_file(path, (size_t)st.st_size, t);
    }
}

int main(int argc, char **argv)
{
    static const uint8_t empty[1];
    tally t = {0, 0};
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    run_input("(empty input)", empty, 0, &t);
    for (i = 1; i < argc; i++)
        run_path(argv[i], &t);
    printf("%ld passed, %ld failed\n", t.passed, t.failed);
    return t.failed == 0 ? 0 : 1;
}
