/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Enabling (unit-install.c): the links of a unit directory as svd reads them, the state each
 * combination of [Install] and links gives, and what enable and disable change, in a directory
 * this test makes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "unit-install.h"
#include "unit.h"
#include "check-run.h"

static char dir[] = "/tmp/svd-test-install.XXXXXX";

static char *mfree_test(char *p) {
        free(p);
        return NULL;
}

static void setup(void) {
        ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        (void) nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir/sub/file -> target, making dir/sub. */
static void link_at(const char *sub, const char *file, const char *target) {
        _cleanup_free_ char *d = NULL, *p = NULL;
        ck_assert_int_ge(asprintf(&d, "%s/%s", dir, sub), 0);
        ck_assert_int_ge(asprintf(&p, "%s/%s", d, file), 0);
        ck_assert(mkdir(d, 0755) == 0 || errno == EEXIST);
        ck_assert_int_eq(symlink(target, p), 0);
}

/* Where dir/sub/file points, or "" when it is no link. */
static const char *target_of(const char *sub, const char *file) {
        static char buf[PATH_MAX];
        _cleanup_free_ char *p = NULL;
        ck_assert_int_ge(asprintf(&p, "%s/%s/%s", dir, sub, file), 0);
        ssize_t n = readlink(p, buf, sizeof(buf) - 1);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

static Unit *load(const char *install) {
        _cleanup_free_ char *text = NULL, *error = NULL;
        Unit *u = NULL;

        ck_assert_int_ge(asprintf(&text, "[Service]\nExecStart=/bin/true\n[Install]\n%s\n", install), 0);
        int r = unit_load_string(text, strlen(text), "test.service", "test", NULL, NULL, NULL, &u, &error);
        ck_assert_msg(r == 0, "load failed: %s", error ?: "?");
        return u;
}

static UnitInstallLinks read_links(void) {
        UnitInstallLinks l;
        ck_assert_int_eq(unit_install_links_read(dir, &l), 0);
        return l;
}

static const char *state(const char *name, const char *install) {
        _cleanup_(unit_freep) Unit *u = install ? load(install) : NULL;
        UnitInstallLinks l = read_links();
        const char *s = unit_file_state_to_string(unit_file_state(&l, name, u));
        unit_install_links_done(&l);
        return s;
}

START_TEST(test_read) {
        UnitInstallLinks l;

        /* No directories at all: nothing linked, nothing wrong. */
        ck_assert_int_eq(unit_install_links_read(dir, &l), 0);
        ck_assert_ptr_null(l.linked);
        ck_assert_ptr_null(l.held);
        ck_assert_uint_eq(l.ignored, 0);
        unit_install_links_done(&l);

        link_at("default.target.wants", "b.service", "../b.service");
        link_at("multi-user.target.wants", "a.service", "/etc/svd/units/a.service"); /* by hand: anywhere */
        link_at("multi-user.target.requires", "b.service", "../b.service");        /* twice: once */
        link_at("default.target.requires", "web@8080.service", "../web@.service");
        link_at("default.target.wants", "off.service", "/dev/null");
        link_at("sockets.target.wants", "other.socket", "../other.socket"); /* a socket unit: NAME.socket */
        link_at("default.target.wants", "bad name.socket", "../x.socket");  /* no unit file's name */
        link_at("default.target.wants", ".off.service.svd-new", "/dev/null"); /* hidden: left alone */
        link_at("graphical.target.wants", "g.service", "../g.service");       /* a target svd does not start */
        _cleanup_free_ char *file = NULL;
        ck_assert_int_ge(asprintf(&file, "%s/default.target.wants/plain.service", dir), 0);
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644); /* no link */
        ck_assert_int_ge(fd, 0);
        close(fd);

        l = read_links();
        ck_assert_uint_eq(strv_length(l.linked), 4);
        ck_assert_str_eq(l.linked[0], "a");
        ck_assert_str_eq(l.linked[1], "b");
        ck_assert_str_eq(l.linked[2], "other.socket");
        ck_assert_str_eq(l.linked[3], "web@8080");
        ck_assert_uint_eq(strv_length(l.held), 1);
        ck_assert_str_eq(l.held[0], "off");
        ck_assert_uint_eq(l.ignored, 2);
        ck_assert_ptr_nonnull(l.first_ignored);
        ck_assert(!l.truncated);
        ck_assert(unit_install_is_linked(&l, "b"));
        ck_assert(!unit_install_is_linked(&l, "g"));
        ck_assert(unit_install_is_linked(&l, "other.socket"));
        ck_assert(!unit_install_is_linked(&l, "other"));
        ck_assert(unit_install_is_held(&l, "off"));
        ck_assert(!unit_install_is_held(&l, "b"));
        unit_install_links_done(&l);
}
END_TEST

START_TEST(test_state) {
        /* Without links: the unit's own file. */
        ck_assert_str_eq(state("u", "WantedBy=default.target"), "enabled");
        ck_assert_str_eq(state("u", "RequiredBy=multi-user.target"), "enabled");
        ck_assert_str_eq(state("u", "WantedBy=graphical.target"), "disabled");
        ck_assert_str_eq(state("u", "Also=v"), "indirect");
        ck_assert_str_eq(state("u", "Alias=v"), "static"); /* svd applies Alias= without enabling */
        ck_assert_str_eq(state("u", ""), "static");
        ck_assert_str_eq(state("u", NULL), "bad");
        /* Templates and instances: an instance is not started by its template's WantedBy=. */
        ck_assert_str_eq(state("web@", "WantedBy=default.target"), "disabled");
        ck_assert_str_eq(state("web@", ""), "static");
        ck_assert_str_eq(state("web@8080", "WantedBy=default.target"), "disabled");
        ck_assert_str_eq(state("web@8080", ""), "static");

        /* A link enables, a static unit too (a package's or an admin's link by hand). */
        link_at("multi-user.target.wants", "u.service", "../u.service");
        link_at("default.target.wants", "web@8080.service", "../web@.service");
        ck_assert_str_eq(state("u", "WantedBy=graphical.target"), "enabled");
        ck_assert_str_eq(state("u", ""), "enabled");
        ck_assert_str_eq(state("web@8080", "WantedBy=default.target"), "enabled");
        ck_assert_str_eq(state("web@8080", ""), "enabled");
        ck_assert_str_eq(state("web@", "WantedBy=default.target"), "indirect");
        ck_assert_str_eq(state("web@9090", "WantedBy=default.target"), "disabled");
        ck_assert_str_eq(state("we", "WantedBy=default.target"), "enabled"); /* no prefix match */

        /* A link to /dev/null holds back, whatever else says the unit starts. */
        link_at("default.target.requires", "u.service", "/dev/null");
        ck_assert_str_eq(state("u", "WantedBy=default.target"), "disabled");
        ck_assert_str_eq(state("u", ""), "static");
}
END_TEST

static void changes_check(const UnitFileChanges *c, size_t i, UnitFileChangeType type, const char *sub,
                          const char *file, const char *source) {
        _cleanup_free_ char *p = NULL;
        ck_assert_uint_lt(i, c->n);
        ck_assert_int_ge(asprintf(&p, "%s/%s/%s", dir, sub, file), 0);
        ck_assert_int_eq(c->items[i].type, type);
        ck_assert_str_eq(c->items[i].path, p);
        if (source)
                ck_assert_str_eq(c->items[i].source, source);
        else
                ck_assert_ptr_null(c->items[i].source);
}

START_TEST(test_enable_disable) {
        _cleanup_(unit_freep) Unit *u = load("WantedBy=multi-user.target graphical.target\nRequiredBy=default.target");
        _cleanup_(unit_freep) Unit *s = load("");
        UnitFileChanges c = {};
        _cleanup_free_ char *path = NULL;

        /* One link per target svd starts, of the kind its key asks for; directories made. */
        ck_assert_int_eq(unit_install_enable(dir, "u", "u.service", u, &c, &path), 2);
        ck_assert_ptr_null(path);
        ck_assert_uint_eq(c.n, 2);
        changes_check(&c, 0, UNIT_FILE_SYMLINK, "multi-user.target.wants", "u.service", "../u.service");
        changes_check(&c, 1, UNIT_FILE_SYMLINK, "default.target.requires", "u.service", "../u.service");
        ck_assert_str_eq(target_of("multi-user.target.wants", "u.service"), "../u.service");
        ck_assert_str_eq(target_of("default.target.requires", "u.service"), "../u.service");
        unit_file_changes_done(&c);

        /* Again: nothing to do. */
        ck_assert_int_eq(unit_install_enable(dir, "u", "u.service", u, &c, &path), 2);
        ck_assert_uint_eq(c.n, 0);

        /* A static unit: nothing. */
        ck_assert_int_eq(unit_install_enable(dir, "s", "s.service", s, &c, &path), 0);
        ck_assert_uint_eq(c.n, 0);

        /* An instance links to its template's file. */
        ck_assert_int_eq(unit_install_enable(dir, "u@1", "u@.service", u, &c, &path), 2);
        ck_assert_str_eq(target_of("multi-user.target.wants", "u@1.service"), "../u@.service");
        unit_file_changes_done(&c);

        /* disable removes every link, a hand-made one too; hold leaves a link to /dev/null. */
        link_at("default.target.wants", "u.service", "/somewhere/u.service");
        ck_assert_int_eq(unit_install_disable(dir, "u", /* hold= */ true, &c, &path), 0);
        ck_assert_uint_eq(c.n, 4);
        changes_check(&c, 0, UNIT_FILE_UNLINK, "default.target.wants", "u.service", NULL);
        changes_check(&c, 1, UNIT_FILE_UNLINK, "default.target.requires", "u.service", NULL);
        changes_check(&c, 2, UNIT_FILE_UNLINK, "multi-user.target.wants", "u.service", NULL);
        changes_check(&c, 3, UNIT_FILE_SYMLINK, "default.target.wants", "u.service", "/dev/null");
        ck_assert_str_eq(target_of("default.target.wants", "u.service"), "/dev/null");
        ck_assert_str_eq(target_of("multi-user.target.wants", "u.service"), "");
        ck_assert_str_eq(target_of("multi-user.target.wants", "u@1.service"), "../u@.service");
        unit_file_changes_done(&c);
        ck_assert_str_eq(state("u", "WantedBy=multi-user.target"), "disabled");

        /* Held already: nothing more. */
        ck_assert_int_eq(unit_install_disable(dir, "u", /* hold= */ true, &c, &path), 0);
        ck_assert_uint_eq(c.n, 0);

        /* enable undoes the hold: the link first, then the /dev/null link goes. */
        link_at("multi-user.target.requires", "u.service", "/dev/null");
        ck_assert_int_eq(unit_install_enable(dir, "u", "u.service", u, &c, &path), 2);
        ck_assert_uint_eq(c.n, 4);
        changes_check(&c, 0, UNIT_FILE_SYMLINK, "multi-user.target.wants", "u.service", "../u.service");
        changes_check(&c, 1, UNIT_FILE_SYMLINK, "default.target.requires", "u.service", "../u.service");
        changes_check(&c, 2, UNIT_FILE_UNLINK, "default.target.wants", "u.service", NULL);
        changes_check(&c, 3, UNIT_FILE_UNLINK, "multi-user.target.requires", "u.service", NULL);
        unit_file_changes_done(&c);
        ck_assert_str_eq(state("u", "WantedBy=multi-user.target"), "enabled");

        /* Without hold (the file names no target svd starts, an instance): no /dev/null link. */
        ck_assert_int_eq(unit_install_disable(dir, "u@1", /* hold= */ false, &c, &path), 0);
        ck_assert_uint_eq(c.n, 2);
        changes_check(&c, 0, UNIT_FILE_UNLINK, "default.target.requires", "u@1.service", NULL);
        changes_check(&c, 1, UNIT_FILE_UNLINK, "multi-user.target.wants", "u@1.service", NULL);
        ck_assert_str_eq(target_of("default.target.wants", "u@1.service"), "");
        unit_file_changes_done(&c);
}
END_TEST

START_TEST(test_enable_fails) {
        _cleanup_(unit_freep) Unit *u = load("WantedBy=default.target");
        UnitFileChanges c = {};
        _cleanup_free_ char *path = NULL, *want = NULL;

        /* A file where the directory would go: the error names it, as a read-only directory's would. */
        ck_assert_int_ge(asprintf(&want, "%s/default.target.wants", dir), 0);
        int fd = open(want, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(unit_install_enable(dir, "u", "u.service", u, &c, &path), -ENOTDIR);
        ck_assert_str_eq(path, want);
        ck_assert_uint_eq(c.n, 0);
        path = mfree_test(path);

        ck_assert_int_eq(unit_install_disable(dir, "u", /* hold= */ true, &c, &path), -ENOTDIR);
        ck_assert_str_eq(path, want);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-install");
        TCase *tc = tcase_create("links");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_read);
        tcase_add_test(tc, test_state);
        tcase_add_test(tc, test_enable_disable);
        tcase_add_test(tc, test_enable_fails);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
