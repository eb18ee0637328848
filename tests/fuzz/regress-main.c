/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replays inputs through a fuzz target without libFuzzer:
 *
 *   fuzz-NAME-regress PATH...
 *
 * Each PATH is a file or a directory whose regular files (not recursing,
 * hidden files skipped) are run once each, in name order so that a failure
 * is reproducible. A crash or a sanitizer report ends the process, as it
 * would under libFuzzer; the last "running FILE" line on stderr names the
 * input. Exit status 0 when every input ran, 1 when a PATH could not be read
 * or held no input at all (an empty corpus is a packaging mistake).
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Inputs larger than this are refused: libFuzzer's default -max_len is 4096
 * and the seeds are far smaller; a huge file here is a mistake. */
#define REGRESS_INPUT_MAX (4U << 20)

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv) {
        return 0;
}

static int run_file(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f) {
                fprintf(stderr, "Failed to open '%s': %s\n", path, strerror(errno));
                return -1;
        }
        uint8_t *buf = malloc(REGRESS_INPUT_MAX);
        if (!buf) {
                fclose(f);
                return -1;
        }
        size_t n = fread(buf, 1, REGRESS_INPUT_MAX, f);
        bool bad = ferror(f) || !feof(f);
        fclose(f);
        if (bad) {
                fprintf(stderr, "Failed to read '%s' (or larger than %u bytes)\n", path, REGRESS_INPUT_MAX);
                free(buf);
                return -1;
        }
        fprintf(stderr, "running %s (%zu bytes)\n", path, n);
        /* A copy of exactly n bytes, so that ASan catches reads past the end. */
        uint8_t *exact = malloc(n ? n : 1);
        if (!exact) {
                free(buf);
                return -1;
        }
        memcpy(exact, buf, n);
        free(buf);
        (void) LLVMFuzzerTestOneInput(exact, n);
        free(exact);
        return 0;
}

static int compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Runs every regular file in dir; returns how many, or -1. */
static int run_dir(const char *dir) {
        DIR *d = opendir(dir);
        if (!d) {
                fprintf(stderr, "Failed to open '%s': %s\n", dir, strerror(errno));
                return -1;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char **a = realloc(names, (n + 1) * sizeof(char *));
                if (!a)
                        abort();
                names = a;
                if (asprintf(&names[n++], "%s/%s", dir, de->d_name) < 0)
                        abort();
        }
        closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(char *), compare);

        int count = 0, r = 0;
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
                        if (run_file(names[i]) < 0)
                                r = -1;
                        count++;
                }
                free(names[i]);
        }
        free(names);
        return r < 0 ? -1 : count;
}

int main(int argc, char *argv[]) {
        int total = 0, failed = 0;

        (void) LLVMFuzzerInitialize(&argc, &argv);
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "Failed to stat '%s': %s\n", argv[i], strerror(errno));
                        failed = 1;
                        continue;
                }
                if (S_ISDIR(st.st_mode)) {
                        int n = run_dir(argv[i]);
                        if (n < 0)
                                failed = 1;
                        else
                                total += n;
                } else if (run_file(argv[i]) < 0)
                        failed = 1;
                else
                        total++;
        }
        printf("%d inputs replayed\n", total);
        if (total == 0) {
                fprintf(stderr, "No inputs found.\n");
                return 1;
        }
        return failed;
}
