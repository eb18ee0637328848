/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Real unit files: the .service files that Debian 12 packages ship (tests/units-debian/PACKAGES names
 * each with its package and version), loaded with svd's parser as they are. Prints every file that
 * does not load with its reason, the keys that loaded units use and svd ignores, and the load rate;
 * fails when fewer files load than tests/units-debian/FLOOR says the tree has reached, so the rate
 * cannot go down unnoticed; the same for the files that also set no sandboxing key svd does not
 * enforce (svd refuses those unless it runs with --allow-unsandboxed). Raise FLOOR when a change
 * makes more units load or run. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "unit.h"
#include "check-run.h"

#define CORPUS_FILES_MAX 4096U
#define CORPUS_KEYS_MAX 512U

typedef struct KeyCount {
        char *key; /* "[Service] Foo=" */
        unsigned units;
} KeyCount;

typedef struct Corpus {
        KeyCount keys[CORPUS_KEYS_MAX];
        size_t n_keys;
        char **seen_in_unit; /* keys already counted for the current unit */
} Corpus;

static const char *corpus_dir(void) {
        static char dir[4096];
        const char *src = getenv("SVD_SOURCE_DIR");

        ck_assert_msg(src, "SVD_SOURCE_DIR is not set");
        ck_assert_int_lt(snprintf(dir, sizeof dir, "%s/tests/units-debian", src), (int) sizeof dir);
        return dir;
}

/* "FILE:LINE: Unknown key 'Foo=' in [Service], ignoring." and "... Key 'Foo=' in [Service] is not
 * supported yet, ignoring." → "[Service] Foo=", counted once per unit. */
static void count_warning(const char *message, void *userdata) {
        Corpus *c = userdata;
        const char *k, *e, *s, *se;
        char buf[256];

        k = strstr(message, "ey '");
        if (!k)
                return;
        k += 4;
        e = strstr(k, "='");
        s = e ? strstr(e, " in [") : NULL;
        se = s ? strchr(s + 5, ']') : NULL;
        if (!e || !se)
                return;
        if (snprintf(buf, sizeof buf, "%.*s %.*s=", (int) (se - s - 3), s + 4, (int) (e - k), k) >=
            (int) sizeof buf)
                return;
        if (strv_contains(c->seen_in_unit, buf))
                return;
        ck_assert_int_eq(strv_extend(&c->seen_in_unit, buf), 0);
        for (size_t i = 0; i < c->n_keys; i++)
                if (streq(c->keys[i].key, buf)) {
                        c->keys[i].units++;
                        return;
                }
        ck_assert_uint_lt(c->n_keys, CORPUS_KEYS_MAX);
        c->keys[c->n_keys].key = strdup(buf);
        ck_assert_ptr_nonnull(c->keys[c->n_keys].key);
        c->keys[c->n_keys++].units = 1;
}

static int key_count_compare(const void *a, const void *b) {
        const KeyCount *x = a, *y = b;

        if (x->units != y->units)
                return x->units < y->units ? 1 : -1;
        return strcmp(x->key, y->key);
}

/* The number of FLOOR's line "WHAT N". */
static unsigned read_floor(const char *what) {
        _cleanup_free_ char *path = NULL;
        size_t n = strlen(what);
        char line[256];
        unsigned floor = 0;
        bool found = false;
        FILE *f;

        ck_assert_int_ge(asprintf(&path, "%s/FLOOR", corpus_dir()), 0);
        f = fopen(path, "re");
        ck_assert_msg(f, "cannot open %s: %s", path, strerror(errno));
        while (fgets(line, sizeof line, f))
                if (strneq(line, what, n) && line[n] == ' ' && sscanf(line + n + 1, "%u", &floor) == 1)
                        found = true;
        fclose(f);
        ck_assert_msg(found, "%s has no line '%s N'", path, what);
        return floor;
}

START_TEST(test_corpus_load_rate) {
        _cleanup_free_ char *list = NULL;
        static Corpus corpus;
        unsigned total = 0, loaded = 0, host_lacks = 0, floor = read_floor("loaded");
        unsigned enforced = 0, enforced_floor = read_floor("enforced");
        char line[1024];
        FILE *f;

        ck_assert_int_ge(asprintf(&list, "%s/PACKAGES", corpus_dir()), 0);
        f = fopen(list, "re");
        ck_assert_msg(f, "cannot open %s: %s", list, strerror(errno));

        while (fgets(line, sizeof line, f)) {
                _cleanup_free_ char *path = NULL, *name = NULL, *error = NULL;
                char package[256], version[256], file[512];
                Unit *u = NULL;
                int r;

                if (line[0] == '#' || line[0] == '\n')
                        continue;
                ck_assert_msg(sscanf(line, "%255s %255s %511s", package, version, file) == 3,
                              "bad line in PACKAGES: %s", line);
                ck_assert_uint_lt(total, CORPUS_FILES_MAX);
                total++;

                ck_assert_int_ge(asprintf(&path, "%s/%s/%s", corpus_dir(), package, file), 0);
                ck_assert(unit_name_has_suffix(file));
                name = strdup(file);
                ck_assert_ptr_nonnull(name);
                unit_name_strip_suffix(name);

                corpus.seen_in_unit = strv_free(corpus.seen_in_unit);
                r = unit_load_file(path, name, NULL, count_warning, &corpus, &u, &error);
                /* A file of the list that is missing is the corpus' fault, not the parser's. */
                ck_assert_msg(r != -ENOENT, "%s is listed in PACKAGES but missing", path);
                if (r >= 0) {
                        loaded++;
                        /* Loaded, and svd runs it without --allow-unsandboxed: it sets no sandboxing
                         * key that svd does not enforce. */
                        if (!u->sandbox.not_applied)
                                enforced++;
                        else
                                printf("sandboxing not enforced: %s (%s %s): %s%s\n", file, package, version,
                                       u->sandbox.not_applied[0], u->sandbox.not_applied[1] ? " ..." : "");
                        unit_free(u);
                } else {
                        printf("not loaded: %s (%s %s): %s\n", file, package, version,
                               error ?: "(no message)");
                        /* A specifier that this machine gives no value (%m without /etc/machine-id, as
                         * in a minbase chroot): the file loads where the machine has it. */
                        if (error && strstr(error, "has no value for svd's user"))
                                host_lacks++;
                }
        }
        fclose(f);
        corpus.seen_in_unit = strv_free(corpus.seen_in_unit);

        qsort(corpus.keys, corpus.n_keys, sizeof(KeyCount), key_count_compare);
        printf("keys svd ignores, by the number of units using them:\n");
        for (size_t i = 0; i < corpus.n_keys; i++) {
                printf("  %4u %s\n", corpus.keys[i].units, corpus.keys[i].key);
                free(corpus.keys[i].key);
        }

        printf("corpus: %u of %u unit files load (%.1f %%), floor %u\n", loaded, total,
               total ? 100.0 * loaded / total : 0.0, floor);
        if (host_lacks > 0)
                printf("corpus: %u more load on a machine that gives their specifiers a value\n", host_lacks);
        printf("corpus: %u of %u unit files run without --allow-unsandboxed (every sandboxing key enforced), "
               "floor %u\n", enforced, total, enforced_floor);
        ck_assert_uint_gt(total, 0);
        ck_assert_msg(loaded + host_lacks >= floor, "only %u unit files load (%u more need what this machine lacks), "
                      "the tree had reached %u", loaded, host_lacks, floor);
        /* A file that does not load here for want of the machine's values is not counted against it. */
        ck_assert_msg(enforced + host_lacks >= enforced_floor,
                      "only %u unit files run without --allow-unsandboxed (%u more need what this machine lacks), "
                      "the tree had reached %u",
                      enforced, host_lacks, enforced_floor);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-corpus");
        TCase *tc = tcase_create("debian");

        /* 225 files take a second, several under ASan on a busy machine: not Check's default 4 s. */
        tcase_set_timeout(tc, 110);
        tcase_add_test(tc, test_corpus_load_rate);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
