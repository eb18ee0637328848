/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The varlink server end to end: bytes from a peer → framing
 * (basic/varlink-wire.c) → JSON and envelope checks → dispatch (varlink.c) →
 * the real org.varlink.service and io.svd.Manager handlers
 * (varlink-manager.c, service.c) → replies back to the peer.
 *
 * The input is written to one end of a socketpair whose other end is a
 * connection of a real VarlinkServer, on a real sd-event loop, owned by a
 * real Manager (manager_new()) holding a few services: loaded ones, one whose
 * unit failed to load, one with an unusual but valid name.
 *
 * Nothing may spawn: the Manager is put in its shutting-down state, so that
 * Start and Restart run the real permission check, name lookup, waiter and
 * refusal code and answer io.svd.Manager.SpawnFailed ("svd is shutting
 * down") instead of calling clone3(); Stop of an inactive service is answered
 * at once through the waiter list; Kill finds no process; Reload re-reads
 * the same unit files; Subscribe and Logs with follow hold the call until
 * the peer leaves. No service ever runs, so every input starts from nearly
 * the same world (only the operator's wanted flag, written next to the
 * socket, follows Start and Stop) and a crash reproduces from its file
 * alone. (The fuzzer runs as root or as the Manager's owner, so write
 * methods are always allowed; PermissionDenied is covered by test-varlink and
 * e2e-permissions.)
 *
 * Oracles besides "no crash, no leak, no sanitizer report":
 *   - every byte the server sends is a NUL-terminated JSON object with only
 *     the reply keys varlink allows (parameters, continues, error), an
 *     error is a string and never "continues", continues a bool
 *     (VARLINK.md §3);
 *   - once the peer has sent everything and shut down its sending side, the
 *     server answers or closes, or holds a streaming call (Subscribe, Logs
 *     with follow) with nothing left to do; once the peer is gone the
 *     connection is freed and any held call cancelled;
 *   - the framing, fed the same bytes through varlink_buffer_append() in
 *     uneven pieces, hands out the same messages, and every message it
 *     parses formats back to text that parses to an equal value.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "basic/macros.h"
#include "basic/varlink-wire.h"
#include "fuzz.h"
#include "svd-log.h"
#include "manager.h"
#include "service.h"
#include "unit.h"
#include "varlink-manager.h"
#include "varlink.h"

/* Loop iterations one input may take before the connection counts as stuck.
 * Each iteration either moves bytes or dispatches a call; 4 KiB of input
 * holds at most ~1000 calls. */
#define FUZZ_ITERATIONS_MAX 100000U
/* Loop iterations without any event or reply after which the peer stops
 * waiting for more (a held call, e.g. Subscribe). */
#define FUZZ_QUIET_MAX 8U
/* Replies collected from one input: the largest (List) is a few KiB, and
 * libFuzzer's -max_len keeps inputs small. */
#define FUZZ_REPLY_BYTES_MAX (64U << 20)

static struct {
        Manager *manager;
        char dir[64];
        char unit_dir[96];
        char socket_path[96];
        VarlinkServer *server;
} world;

/* Written to the unit directory and loaded as svd loads them, so that
 * Reload finds the same files and changes nothing. None is wanted by
 * default.target: nothing may start on its own. */
static const struct {
        const char *name;
        const char *text;
} world_units[] = {
    {"web", "[Unit]\nDescription=Web server \xe2\x9c\x93\n[Service]\nExecStart=/bin/true --port 8080 \"two "
            "words\"\n"
            "Environment=A=1 \"B=two words\"\nRestart=on-failure\n"},
    {"db", "[Service]\nExecStart=/bin/sleep 1000\nKillSignal=SIGINT\nTimeoutStopSec=3\n"},
    {"broken", "[Service]\nExecStart=/bin/true\nRestart=sometimes\n"},
    {"a-b_c:d@e.f", "[Service]\nExecStart=/bin/true\n"},
};

static int rm_rf_children(const char *dir) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' || (de->d_name[1] && (de->d_name[1] != '.' || de->d_name[2])))
                        (void) unlinkat(dirfd(d), de->d_name, 0);
        return 0;
}

static void world_free(void) {
        if (!world.manager)
                return;
        world.manager = manager_free(world.manager);
        (void) rm_rf_children(world.unit_dir);
        (void) rmdir(world.unit_dir);
        (void) rm_rf_children(world.dir);
        (void) rmdir(world.dir);
}

static void world_setup(void) {
        if (world.manager)
                return;

        /* svd logs refusals and dropped connections at notice and above; a
         * fuzzer would drown in them. FUZZ_VERBOSE=1 shows everything. */
        log_max_level = getenv("FUZZ_VERBOSE") ? LOG_DEBUG : LOG_CRIT;

        snprintf(world.dir, sizeof(world.dir), "%s/fuzz-varlink-XXXXXX",
                 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 32 ? getenv("TMPDIR") : "/tmp");
        fuzz_assert(mkdtemp(world.dir));
        snprintf(world.socket_path, sizeof(world.socket_path), "%s/sock", world.dir);
        snprintf(world.unit_dir, sizeof(world.unit_dir), "%s/units", world.dir);
        fuzz_assert(mkdir(world.unit_dir, 0755) == 0);

        ManagerConfig config = {.unit_dir = world.unit_dir, .socket_path = world.socket_path};
        fuzz_assert(manager_new(&config, &world.manager) >= 0);
        Manager *m = world.manager;

        for (size_t i = 0; i < ELEMENTSOF(world_units); i++) {
                char path[160];
                snprintf(path, sizeof(path), "%s/%s.service", world.unit_dir, world_units[i].name);
                FILE *f = fopen(path, "we");
                fuzz_assert(f);
                fuzz_assert(fputs(world_units[i].text, f) >= 0);
                fuzz_assert(fclose(f) == 0);
        }
        fuzz_assert(varlink_manager_attach(m) == 0);
        /* As start-up does: the unit directory into the empty table. */
        fuzz_assert(manager_load_units(m) == 0);

        /* Write methods get as far as service_refuse(), never to clone3(). A stop is not refused
         * while svd shuts down: one that leaves every service settled ends the loop, as it would end
         * svd (fuzz_server() then starts from a new world). */
        m->ctx.shutting_down = true;

        fuzz_assert(manager_listen(m, -EBADF) == 0);
        world.server = varlink_manager_server(m);
        fuzz_assert(world.server);

        static bool registered = false;
        if (!registered)
                fuzz_assert(atexit(world_free) == 0);
        registered = true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        world_setup();
        return 0;
}

/* ---- the reply oracle ---- */

typedef struct Replies {
        char *data;
        size_t size, allocated;
        size_t checked; /* bytes up to here are complete, checked messages */
        size_t count;
} Replies;

static void replies_append(Replies *r, const char *data, size_t n) {
        fuzz_assert(r->size + n <= FUZZ_REPLY_BYTES_MAX);
        if (r->size + n > r->allocated) {
                size_t a = r->allocated ? r->allocated : 4096;
                while (a < r->size + n)
                        a *= 2;
                r->data = realloc(r->data, a);
                fuzz_assert(r->data);
                r->allocated = a;
        }
        memcpy(r->data + r->size, data, n);
        r->size += n;
}

static void check_reply(const char *text, size_t len) {
        json_error_t e;
        json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
        if (!v)
                fprintf(stderr, "unparseable reply: %.*s\n", (int) len, text);
        fuzz_assert(v);
        fuzz_assert(json_is_object(v));
        const char *key;
        json_t *field;
        json_object_foreach(v, key, field) {
                if (streq(key, "parameters"))
                        fuzz_assert(json_is_object(field));
                else if (streq(key, "error"))
                        fuzz_assert(json_is_string(field));
                else if (streq(key, "continues"))
                        fuzz_assert(json_is_boolean(field));
                else {
                        fprintf(stderr, "reply key '%s' is not varlink\n", key);
                        fuzz_assert(false);
                }
        }
        /* An error is always final (VARLINK.md §3). */
        if (json_is_true(json_object_get(v, "continues")))
                fuzz_assert(!json_object_get(v, "error"));
        json_decref(v);
}

static void replies_check(Replies *r) {
        while (r->checked < r->size) {
                char *nul = memchr(r->data + r->checked, 0, r->size - r->checked);
                if (!nul)
                        return;
                size_t len = (size_t) (nul - (r->data + r->checked));
                check_reply(r->data + r->checked, len);
                r->checked += len + 1;
                r->count++;
        }
}

/* Reads what the server sent; returns false once it closed the connection. */
static bool client_drain(int fd, Replies *r) {
        char buf[65536];
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n > 0) {
                        replies_append(r, buf, (size_t) n);
                        continue;
                }
                if (n == 0)
                        return false;
                if (errno == EAGAIN || errno == EINTR)
                        return true;
                return false; /* ECONNRESET: closed with unread input, as sd-varlink does */
        }
}

/* ---- the server, through a socketpair ---- */

static void fuzz_server(const uint8_t *data, size_t size) {
        Manager *m = world.manager;
        int sp[2];
        Replies replies = {};

        fuzz_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sp) == 0);
        fuzz_assert(varlink_server_add_connection(world.server, sp[0]) == 0);
        int client = sp[1];

        size_t off = 0;
        bool shut = false, open = true;
        unsigned i, quiet = 0;
        for (i = 0; i < FUZZ_ITERATIONS_MAX && open && quiet < FUZZ_QUIET_MAX; i++) {
                size_t before = replies.size;
                int r;
                if (off < size) {
                        ssize_t n = send(client, data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
                        if (n > 0)
                                off += (size_t) n;
                        else if (n < 0 && errno != EAGAIN && errno != EINTR)
                                off = size; /* the server hung up: the rest cannot be sent */
                }
                if (off == size && !shut) {
                        (void) shutdown(client, SHUT_WR);
                        shut = true;
                }
                r = sd_event_run(m->event, 0);
                open = client_drain(client, &replies);
                replies_check(&replies);
                /* The world is svd shutting down (see world_setup()): a stop that settles the last
                 * service ends its loop, as it ends svd. The connection goes with it. */
                if (sd_event_get_state(m->event) == SD_EVENT_FINISHED)
                        break;
                /* A call may legitimately stay open (Subscribe, Logs with
                 * follow): once everything is sent and the loop has nothing
                 * left to do, the peer gives up waiting. */
                quiet = shut && r == 0 && replies.size == before ? quiet + 1 : 0;
        }
        if (sd_event_get_state(m->event) == SD_EVENT_FINISHED) {
                /* As svd exits: what it holds is freed, and the next input meets a new svd. */
                safe_close(client);
                world_free();
                free(replies.data);
                return;
        }
        if (i >= FUZZ_ITERATIONS_MAX) {
                fprintf(stderr, "connection still busy after %u loop iterations\n", i);
                fuzz_assert(false);
        }
        /* Whatever the server still holds, the peer's close ends it: held
         * calls are cancelled, the connection is freed. */
        safe_close(client);
        for (i = 0; i < 1000 && varlink_server_n_connections(world.server) > 0; i++)
                (void) sd_event_run(m->event, 0);
        fuzz_assert(varlink_server_n_connections(world.server) == 0);
        if (getenv("FUZZ_VERBOSE"))
                fprintf(stderr, "%zu replies, %zu bytes: %.*s\n", replies.count, replies.size,
                        (int) (replies.size < 300 ? replies.size : 300), replies.data ? replies.data : "");
        free(replies.data);
}

/* ---- the framing on its own ---- */

static void fuzz_framing(const uint8_t *data, size_t size) {
        VarlinkBuffer b;
        varlink_buffer_init(&b, VARLINK_MESSAGE_MAX);

        /* Uneven pieces, derived from the data so that runs reproduce. */
        size_t off = 0;
        unsigned seed = size;
        while (off < size) {
                seed = seed * 1103515245U + 12345U;
                size_t piece = 1 + (seed >> 16) % 97;
                if (piece > size - off)
                        piece = size - off;
                fuzz_assert(varlink_buffer_append(&b, data + off, piece) == 0);
                off += piece;

                for (;;) {
                        const char *text;
                        size_t len;
                        int r = varlink_buffer_next(&b, &text, &len);
                        if (r == -EMSGSIZE) {
                                fuzz_assert(varlink_buffer_pending(&b) > VARLINK_MESSAGE_MAX - 1);
                                varlink_buffer_done(&b);
                                return;
                        }
                        fuzz_assert(r >= 0);
                        if (r == 0)
                                break;
                        fuzz_assert(text[len] == 0);
                        fuzz_assert(!memchr(text, 0, len));

                        json_t *v = NULL;
                        if (varlink_message_parse(text, len, &v) < 0)
                                continue;
                        fuzz_assert(json_is_object(v));
                        fuzz_assert(json_depth(v) <= VARLINK_NESTING_MAX);
                        char *out = NULL;
                        size_t out_len;
                        int k = varlink_message_format(v, &out, &out_len);
                        fuzz_assert(k == 0);
                        fuzz_assert(out_len >= 1 && out[out_len - 1] == 0);
                        json_t *w = NULL;
                        fuzz_assert(varlink_message_parse(out, out_len - 1, &w) == 0);
                        fuzz_assert(json_equal(v, w));
                        json_decref(w);
                        json_decref(v);
                        free(out);
                }
        }
        varlink_buffer_done(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        world_setup();
        fuzz_framing(data, size);
        fuzz_server(data, size);
        return 0;
}
