/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/basic/: UTF-8, clocks, the intrusive list, string tables, unit names, the socket path. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/list.h"
#include "basic/lock-file.h"
#include "basic/macros.h"
#include "basic/socket-path.h"
#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "basic/unit-name.h"
#include "basic/utf8.h"
#include "check-run.h"

START_TEST(test_utf8_valid) {
        static const char *const good[] = {
                "", "plain ASCII", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
                "\xed\x9f\xbf", /* U+D7FF, just below the surrogates */
        };
        static const char *const bad[] = {
                "\x80",             /* continuation byte first */
                "\xc3",             /* cut short */
                "\xc3\x28",         /* bad continuation */
                "\xc0\xaf",         /* overlong '/' */
                "\xe0\x80\xaf",     /* overlong '/' */
                "\xf0\x80\x80\xaf", /* overlong '/' */
                "\xed\xa0\x80",     /* U+D800, a surrogate */
                "\xf4\x90\x80\x80", /* U+110000 */
                "\xf8\x88\x80\x80\x80",
                "\xff",
        };

        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                ck_assert_msg(utf8_is_valid(good[i]), "good[%zu]", i);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_msg(!utf8_is_valid(bad[i]), "bad[%zu]", i);
                ck_assert_msg(utf8_char_len(bad[i], strlen(bad[i])) == 0, "bad[%zu]", i);
        }
        ck_assert_uint_eq(utf8_char_len("\xf0\x9f\x98\x80", 4), 4);
        ck_assert_uint_eq(utf8_char_len("\xf0\x9f\x98\x80", 3), 0); /* n cuts the character */
        ck_assert_uint_eq(utf8_char_len("a", 0), 0);
        ck_assert_uint_eq(utf8_char_len("", 1), 0);
        /* utf8_is_valid_n() refuses NUL inside the bytes. */
        ck_assert(!utf8_is_valid_n("a\0b", 3));
        ck_assert(utf8_is_valid_n("a\xc3\xa9", 3));
        ck_assert(!utf8_is_valid_n("a\xc3\xa9", 2));
}
END_TEST

START_TEST(test_utf8_escape_invalid) {
        _cleanup_free_ char *a = utf8_escape_invalid("ok \xc3\xa9", 5);
        ck_assert_str_eq(a, "ok \xc3\xa9");
        _cleanup_free_ char *b = utf8_escape_invalid("a\xff" "b\0c\xc3", 6);
        ck_assert_str_eq(b, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
        ck_assert(utf8_is_valid(b));
        _cleanup_free_ char *c = utf8_escape_invalid("", 0);
        ck_assert_str_eq(c, "");
}
END_TEST

START_TEST(test_utf8_escape_for_log) {
        _cleanup_free_ char *a = utf8_escape_for_log("ok \xc3\xa9\xe2\x82\xac");
        ck_assert_str_eq(a, "ok \xc3\xa9\xe2\x82\xac");
        _cleanup_free_ char *b = utf8_escape_for_log("a\nb\tc\\d\x01\x7f\xff\xc3");
        ck_assert_str_eq(b, "a\\nb\\tc\\\\d\\x01\\x7f\\xff\\xc3");
        _cleanup_free_ char *c = utf8_escape_for_log("");
        ck_assert_str_eq(c, "");
}
END_TEST

START_TEST(test_time) {
        struct timespec ts = { .tv_sec = 3, .tv_nsec = 999999999 };
        ck_assert_uint_eq(timespec_to_usec(&ts), 3999999);

        uint64_t a = now_usec(CLOCK_MONOTONIC), b = now_usec(CLOCK_MONOTONIC);
        ck_assert_uint_ge(b, a);
        ck_assert_uint_gt(a, 0);
        /* CLOCK_REALTIME in microseconds: after 2020-01-01, before 2200. */
        uint64_t r = now_usec(CLOCK_REALTIME);
        ck_assert_uint_gt(r, 1577836800ULL * USEC_PER_SEC);
        ck_assert_uint_lt(r, 7258118400ULL * USEC_PER_SEC);
}
END_TEST

typedef struct Item Item;
struct Item {
        int value;
        LIST_FIELDS(Item, items);
};

static void list_expect(Item *head, const int *values, size_t n) {
        Item *i, *prev = NULL;
        size_t k = 0;

        LIST_FOREACH(items, i, head) {
                ck_assert_uint_lt(k, n);
                ck_assert_int_eq(i->value, values[k]);
                ck_assert_ptr_eq(i->items_prev, prev);
                prev = i;
                k++;
        }
        ck_assert_uint_eq(k, n);
}

START_TEST(test_list) {
        Item items[4] = { { .value = 0 }, { .value = 1 }, { .value = 2 }, { .value = 3 } };
        Item *head = NULL, *i, *n;

        for (size_t k = 0; k < ELEMENTSOF(items); k++)
                LIST_PREPEND(items, head, &items[k]);
        list_expect(head, (const int[]){ 3, 2, 1, 0 }, 4);

        LIST_REMOVE(items, head, &items[2]); /* middle */
        ck_assert_ptr_null(items[2].items_next);
        ck_assert_ptr_null(items[2].items_prev);
        list_expect(head, (const int[]){ 3, 1, 0 }, 3);
        LIST_REMOVE(items, head, &items[3]); /* head */
        list_expect(head, (const int[]){ 1, 0 }, 2);
        LIST_REMOVE(items, head, &items[0]); /* tail */
        list_expect(head, (const int[]){ 1 }, 1);

        LIST_PREPEND(items, head, &items[2]);
        size_t removed = 0;
        LIST_FOREACH_SAFE(items, i, n, head) {
                LIST_REMOVE(items, head, i);
                removed++;
        }
        ck_assert_uint_eq(removed, 2);
        ck_assert_ptr_null(head);
}
END_TEST

typedef enum Colour {
        COLOUR_RED,
        COLOUR_GREEN,
        COLOUR_LIGHT_BLUE,
        _COLOUR_MAX,
        _COLOUR_INVALID = -EINVAL,
} Colour;

static const char *const colour_table[_COLOUR_MAX] = {
        [COLOUR_RED] = "red",
        [COLOUR_GREEN] = "green",
        [COLOUR_LIGHT_BLUE] = "light-blue",
};

const char *colour_to_string(Colour c);
Colour colour_from_string(const char *s);
DEFINE_STRING_TABLE_LOOKUP(colour, Colour);

START_TEST(test_string_table) {
        for (Colour c = 0; c < _COLOUR_MAX; c++)
                ck_assert_int_eq(colour_from_string(colour_to_string(c)), c);
        ck_assert_str_eq(colour_to_string(COLOUR_LIGHT_BLUE), "light-blue");
        ck_assert_ptr_null(colour_to_string(_COLOUR_MAX));
        ck_assert_ptr_null(colour_to_string(_COLOUR_INVALID));
        ck_assert_ptr_null(colour_to_string((Colour) -1));
        ck_assert_int_eq(colour_from_string("blue"), _COLOUR_INVALID);
        ck_assert_int_eq(colour_from_string(""), _COLOUR_INVALID);
        ck_assert_int_eq(colour_from_string("RED"), _COLOUR_INVALID);
        ck_assert_int_eq(colour_from_string(NULL), _COLOUR_INVALID);

        static const char *const sparse[] = { "a", NULL, "c" };
        ck_assert_int_eq(string_table_lookup(sparse, ELEMENTSOF(sparse), "c"), 2);
        ck_assert_int_eq(string_table_lookup(sparse, ELEMENTSOF(sparse), "b"), -EINVAL);
}
END_TEST

START_TEST(test_unit_name_suffix) {
        char a[] = "web.service", b[] = ".service", c[] = "web", d[] = "web.service.service", e[] = "web.target";

        ck_assert(unit_name_has_suffix("web.service"));
        ck_assert(!unit_name_has_suffix(".service")); /* nothing before it */
        ck_assert(!unit_name_has_suffix("web.servic"));
        ck_assert(!unit_name_has_suffix(""));
        ck_assert_str_eq(unit_name_strip_suffix(a), "web");
        ck_assert_str_eq(unit_name_strip_suffix(b), ".service");
        ck_assert_str_eq(unit_name_strip_suffix(c), "web");
        ck_assert_str_eq(unit_name_strip_suffix(d), "web.service"); /* once */
        ck_assert_str_eq(unit_name_strip_suffix(e), "web.target");
}
END_TEST

START_TEST(test_socket_path) {
        _cleanup_free_ char *root = NULL, *user = NULL, *fallback = NULL, *relative = NULL;

        ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1), 0);
        ck_assert_int_eq(socket_path_default(0, &root), 0);
        ck_assert_str_eq(root, "/run/svd/svd.sock");
        ck_assert_int_eq(socket_path_default(1000, &user), 0);
        ck_assert_str_eq(user, "/run/user/1000/svd/svd.sock");

        ck_assert_int_eq(unsetenv("XDG_RUNTIME_DIR"), 0);
        ck_assert_int_eq(socket_path_default(1234, &fallback), 0);
        ck_assert_str_eq(fallback, "/run/user/1234/svd/svd.sock");
        ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", "relative/dir", 1), 0);
        ck_assert_int_eq(socket_path_default(1234, &relative), 0);
        ck_assert_str_eq(relative, "/run/user/1234/svd/svd.sock");
}
END_TEST

START_TEST(test_unit_name_template) {
        char *t = NULL;

        ck_assert(unit_name_is_template("web@"));
        ck_assert(!unit_name_is_template("web@8080"));
        ck_assert(!unit_name_is_template("web"));
        ck_assert(!unit_name_is_template("@"));
        ck_assert_int_eq(unit_name_template_of("web@8080", &t), 0);
        ck_assert_str_eq(t, "web@");
        free(t);
        ck_assert_int_eq(unit_name_template_of("web@a@b.service", &t), 0);
        ck_assert_str_eq(t, "web@");
        free(t);
        ck_assert_int_eq(unit_name_template_of("web@", &t), -EINVAL);
        ck_assert_int_eq(unit_name_template_of("web@.service", &t), -EINVAL);
        ck_assert_int_eq(unit_name_template_of("web", &t), -EINVAL);
        ck_assert_int_eq(unit_name_template_of("@x", &t), -EINVAL);
}
END_TEST

/* path's check for uid: its error, and the reason containing `what`. */
static int check_path(const char *path, uid_t uid, const char *what) {
        _cleanup_free_ char *reason = NULL;
        int r = socket_path_check(path, uid, &reason);
        if (r < 0) {
                ck_assert_ptr_nonnull(reason);
                ck_assert_msg(strstr(reason, what), "'%s' does not say '%s'", reason, what);
        } else
                ck_assert_ptr_null(reason);
        return r;
}

START_TEST(test_socket_path_check) {
        char dir[] = "/tmp/test-socket-path.XXXXXX", p[256];
        uid_t me = getuid();

        ck_assert_ptr_nonnull(mkdtemp(dir));
        /* mkdtemp: 0700, ours; /tmp above it is sticky. */
        (void) snprintf(p, sizeof(p), "%s/svd.sock", dir);
        ck_assert_int_eq(check_path(p, me, ""), 0);
        if (me != 0) /* another uid's directory (root's would be trusted) */
                ck_assert_int_eq(check_path(p, me + 1, "is owned by uid"), -EPERM);

        ck_assert_int_eq(chmod(dir, 0757), 0);
        ck_assert_int_eq(check_path(p, me, "is writable by group or others (mode 0757)"), -EPERM);
        ck_assert_int_eq(chmod(dir, 0755), 0);

        /* A directory under one that others may write without the sticky bit. */
        char sub[256], subp[300];
        (void) snprintf(sub, sizeof(sub), "%s/sub", dir);
        ck_assert_int_eq(mkdir(sub, 0755), 0);
        (void) snprintf(subp, sizeof(subp), "%s/svd.sock", sub);
        ck_assert_int_eq(chmod(dir, 0775), 0);
        ck_assert_int_eq(check_path(subp, me, "without the sticky bit"), -EPERM);
        ck_assert_int_eq(chmod(dir, 01777), 0);
        ck_assert_int_eq(check_path(subp, me, ""), 0);
        ck_assert_int_eq(chmod(dir, 0755), 0);

        /* The directory as a symbolic link, and a file or link at the path. */
        char link[256], linkp[300];
        (void) snprintf(link, sizeof(link), "%s/link", dir);
        ck_assert_int_eq(symlink(sub, link), 0);
        (void) snprintf(linkp, sizeof(linkp), "%s/svd.sock", link);
        ck_assert_int_eq(check_path(linkp, me, "is a symbolic link"), -ELOOP);
        ck_assert_int_eq(symlink("/etc/passwd", subp), 0);
        ck_assert_int_eq(check_path(subp, me, "exists and is not a socket"), -EEXIST);

        ck_assert_int_eq(unlink(subp), 0);
        ck_assert_int_eq(unlink(link), 0);
        ck_assert_int_eq(rmdir(sub), 0);
        ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The holder's lock is seen by another process, with the holder's pid; it
 * survives the holder's own fork (the child does not inherit it) and goes
 * when the holder closes the fd; links and non-files are refused. */
START_TEST(test_lock_file) {
        char dir[] = "/tmp/test-lock.XXXXXX", path[64], link[64], fifo[64];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/svd.lock", dir);
        snprintf(link, sizeof(link), "%s/link.lock", dir);
        snprintf(fifo, sizeof(fifo), "%s/fifo.lock", dir);

        int fd = -EBADF;
        pid_t holder = -1;
        ck_assert_int_eq(lock_file_take(path, &fd, &holder), 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(holder, -1); /* untouched on success */
        ck_assert_int_eq(lock_file_write_pid(fd, 4242), 0);

        /* Another process: refused, told the holder's pid by the kernel. */
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int cfd = -EBADF;
                pid_t h = 0;
                int r = lock_file_take(path, &cfd, &h);
                _exit(r == -EBUSY && h == getppid() ? 0 : 1);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

        /* Released with the fd: the next one takes it. */
        close(fd);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int cfd = -EBADF;
                _exit(lock_file_take(path, &cfd, NULL) == 0 ? 0 : 1);
        }
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

        ck_assert_int_eq(symlink(path, link), 0);
        ck_assert_int_eq(lock_file_take(link, &fd, NULL), -EEXIST);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        ck_assert_int_eq(lock_file_take(fifo, &fd, NULL), -EEXIST);

        ck_assert_int_eq(unlink(fifo), 0);
        ck_assert_int_eq(unlink(link), 0);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A list built with its length kept by the caller: every entry in place and the list
 * NULL-terminated after each append, as it grows past several reallocations; strv_consume()
 * appends to the same list; a failed append (no value) leaves it as it was. */
START_TEST(test_strv_with_size) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;
        char buf[32];

        for (size_t i = 0; i < 1000; i++) {
                snprintf(buf, sizeof(buf), "e%zu", i);
                ck_assert_int_eq(strv_extend_with_size(&l, &n, buf), 0);
                ck_assert_uint_eq(n, i + 1);
                ck_assert_ptr_null(l[n]);
                ck_assert_uint_eq(strv_length(l), n);
        }
        for (size_t i = 0; i < 1000; i++) {
                snprintf(buf, sizeof(buf), "e%zu", i);
                ck_assert_str_eq(l[i], buf);
        }
        ck_assert_int_eq(strv_consume_with_size(&l, &n, NULL), -ENOMEM);
        ck_assert_uint_eq(n, 1000);
        ck_assert_int_eq(strv_consume(&l, strdup("last")), 0);
        ck_assert_uint_eq(strv_length(l), 1001);
        ck_assert_str_eq(l[1000], "last");
        ck_assert_ptr_null(l[1001]);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("basic");
        TCase *tc = tcase_create("basic");
        tcase_add_test(tc, test_utf8_valid);
        tcase_add_test(tc, test_unit_name_template);
        tcase_add_test(tc, test_utf8_escape_invalid);
        tcase_add_test(tc, test_utf8_escape_for_log);
        tcase_add_test(tc, test_time);
        tcase_add_test(tc, test_list);
        tcase_add_test(tc, test_string_table);
        tcase_add_test(tc, test_unit_name_suffix);
        tcase_add_test(tc, test_socket_path);
        tcase_add_test(tc, test_socket_path_check);
        tcase_add_test(tc, test_lock_file);
        tcase_add_test(tc, test_strv_with_size);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
