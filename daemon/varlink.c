/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink server: framing, dispatch, errors and limits; the only code that parses the wire. */
#include "varlink.h"

#include <fcntl.h>
#include <malloc.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "basic/varlink-wire.h"
#include "svd-log.h"

/* Interfaces one server can carry. */
#define VARLINK_INTERFACES_MAX 8U
/* After accept() fails for lack of fds, wait this long before trying again
 * rather than spinning on a listening socket that stays readable. */
#define VARLINK_ACCEPT_RETRY_USEC (100 * USEC_PER_MSEC)
/* Of VARLINK_CONNECTIONS_MAX, this many are kept for root and svd's own
 * user: other users filling every slot must not lock out the operator. */
#define VARLINK_CONNECTIONS_RESERVED 64U
/* Memory that peers other than root and svd's own user may make svd hold in
 * unfinished messages and unread replies: per uid over all its connections,
 * and all of them together. A connection holding more than
 * VARLINK_BUFFERED_FREE that grows while its uid or everyone is over budget
 * is closed (for a reply: dropped, as when VARLINK_OUTPUT_MAX is reached,
 * so a slow reader of a stream is cut off rather than served). Without
 * it, one user's 1024 connections could each hold an unfinished 1 MiB
 * message and a 1 MiB backlog of replies: 2 GiB, and svd the OOM killer's
 * first choice, which takes every service down. */
#define VARLINK_BUFFERED_PER_UID_MAX (32U << 20)
#define VARLINK_BUFFERED_MAX (64U << 20)
/* What one connection may hold regardless of the budgets (its 64 KiB read
 * buffer and an ordinary reply), so that a greedy uid cannot starve the
 * small calls of others. */
#define VARLINK_BUFFERED_FREE (80U << 10)
/* Log lines about misbehaving peers (refused connections, oversized or
 * broken messages, denied calls): at most this many per interval, so that a
 * peer cannot flood svd's log by reconnecting in a loop. */
#define VARLINK_LOG_BURST 10U
/* The parameters of a state-changing call as its log line quotes them. */
#define VARLINK_AUDIT_PARAMETERS_MAX 256U
/* Supplementary groups read with SO_PEERGROUPS: the kernel's NGROUPS_MAX. */
#define VARLINK_PEER_GROUPS_MAX 65536U
#define VARLINK_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)
/* Buffer memory given back to malloc beyond which svd gives it back to the kernel (malloc_trim()),
 * VARLINK_TRIM_DELAY_USEC later: at most once per delay, however busy the socket. A flood of 1000 half-sent
 * messages leaves each connection's read buffer free in the heap, where nothing returns it:
 * without this, svd stays 60 MiB larger after the flood is gone. */
#define VARLINK_TRIM_AFTER (1U << 20)
#define VARLINK_TRIM_DELAY_USEC (1 * USEC_PER_SEC)
/* Emptied buffers up to this size are kept, this many, for the next connections: then a call costs
 * no allocation of a few KiB, which glibc's malloc serves only after consolidating every small chunk
 * freed since the last (the JSON of the calls before), more slowly the larger svd's heap is. */
#define VARLINK_SPARE_BUFFERS 4U
#define VARLINK_SPARE_SIZE_MAX (16U << 10)

typedef struct VarlinkInterface {
        const char *name;
        const char *idl;
        const VarlinkMethod *methods;
        void *userdata;
} VarlinkInterface;

typedef struct VarlinkConnection VarlinkConnection;

/* One per uid with open connections. */
typedef struct VarlinkPeer {
        uid_t uid;
        size_t n_connections;
        size_t buffered; /* bytes its connections hold (see connection_account()) */
        struct VarlinkPeer *next;
} VarlinkPeer;

struct VarlinkServer {
        sd_event *event;
        int listen_fd;
        char *path;
        sd_event_source *listen_source;
        sd_event_source *accept_retry_source;
        VarlinkServerInfo info;
        uid_t owner;
        VarlinkGroups groups;
        VarlinkInterface interfaces[VARLINK_INTERFACES_MAX];
        size_t n_interfaces;
        VarlinkConnection *connections;
        size_t n_connections;
        VarlinkPeer *peers;
        size_t buffered;       /* bytes held for unprivileged peers, all together */
        bool accept_paused;    /* accept() failed; accept_retry_source resumes it */
        uint64_t log_window_usec;
        unsigned log_count, log_suppressed;
        size_t freed;                 /* buffer bytes given back to malloc since the last trim */
        sd_event_source *trim_source; /* gives them back to the kernel */
        VarlinkBuffer spare[VARLINK_SPARE_BUFFERS]; /* emptied buffers for the next connections */
        size_t n_spare;
};

struct VarlinkCall {
        VarlinkConnection *connection; /* NULL for oneway calls and once the peer is gone */
        char *method;
        bool more;
        bool oneway;
        bool in_dispatch; /* the handler is still running: it may not be freed yet */
        bool done;        /* final reply sent */
        uid_t uid;
        pid_t pid;
        VarlinkRight rights;
        char *audit; /* state-changing calls: the parameters to log with the outcome */
        VarlinkCancelFn cancel;
        void *cancel_userdata;
};

struct VarlinkConnection {
        VarlinkServer *server;
        int fd;
        uid_t uid;
        pid_t pid;
        VarlinkRight rights; /* from the credentials at connect() */
        sd_event_source *io_source;
        sd_event_source *defer_source; /* resumes processing after a deferred reply */
        VarlinkBuffer input;
        VarlinkBuffer output; /* replies not yet sent */
        bool read_eof;
        bool dead; /* a reply could not be queued: close at the next chance */
        VarlinkCall *current; /* the call being answered */
        VarlinkPeer *peer;
        bool privileged;  /* root or svd's own user: no memory budget */
        size_t buffered;  /* input buffer plus queued output, as last accounted */
        VarlinkConnection *next, *prev;
};

static void connection_free(VarlinkConnection *c);
static void connection_update(VarlinkConnection *c);

/* ---- giving memory back ---- */

static int on_trim(sd_event_source *source, uint64_t usec, void *userdata) {
        VarlinkServer *s = userdata;
        s->trim_source = sd_event_source_disable_unref(s->trim_source);
        s->freed = 0;
#ifdef __GLIBC__
        (void) malloc_trim(/* pad= */ 0);
#endif
        return 0;
}

/* Frees a connection's buffer, counting its bytes towards the next trim, or keeps a small one for
 * the next connection. */
static void server_buffer_done(VarlinkServer *s, VarlinkBuffer *b) {
        if (b->data && b->allocated <= VARLINK_SPARE_SIZE_MAX && s->n_spare < VARLINK_SPARE_BUFFERS) {
                s->spare[s->n_spare++] = (VarlinkBuffer){ .data = b->data, .allocated = b->allocated };
                *b = (VarlinkBuffer){ .max = b->max };
                return;
        }
        s->freed += b->allocated;
        varlink_buffer_done(b);
        if (s->freed < VARLINK_TRIM_AFTER || s->trim_source)
                return;
        (void) sd_event_add_time_relative(s->event, &s->trim_source, CLOCK_MONOTONIC, VARLINK_TRIM_DELAY_USEC,
                                          /* accuracy= */ 0, on_trim, s);
}

/* An empty buffer gets a kept one, if there is one. */
static void server_buffer_take(VarlinkServer *s, VarlinkBuffer *b) {
        if (b->data || s->n_spare == 0)
                return;
        VarlinkBuffer *k = &s->spare[--s->n_spare];
        b->data = TAKE_PTR(k->data);
        b->allocated = k->allocated;
        b->start = b->end = b->scanned = 0;
}

/* ---- rate-limited logging of peer misbehaviour ---- */

static bool server_log_allowed(VarlinkServer *s) {
        uint64_t now;
        if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0)
                return true;
        if (now - s->log_window_usec >= VARLINK_LOG_INTERVAL_USEC) {
                if (s->log_suppressed > 0)
                        log_notice("varlink: %u more messages about misbehaving clients suppressed.",
                                   s->log_suppressed);
                s->log_window_usec = now;
                s->log_count = s->log_suppressed = 0;
        }
        if (s->log_count >= VARLINK_LOG_BURST) {
                s->log_suppressed++;
                return false;
        }
        s->log_count++;
        return true;
}

#define server_log(s, level, ...)                                                                            \
        do {                                                                                                 \
                if (server_log_allowed(s))                                                                   \
                        log_full(level, __VA_ARGS__);                                                        \
        } while (0)

/* ---- memory accounting ---- */

/* Brings the connection's share of its peer's and the server's totals up to
 * date with what it holds now. */
static void connection_account(VarlinkConnection *c) {
        size_t now = c->input.allocated + c->output.allocated;
        if (now == c->buffered)
                return;
        c->peer->buffered = c->peer->buffered - c->buffered + now;
        if (!c->privileged)
                c->server->buffered = c->server->buffered - c->buffered + now;
        c->buffered = now;
}

/* Whether the connection may hold `want` bytes in all. */
static bool connection_may_hold(VarlinkConnection *c, size_t want) {
        if (c->privileged || want <= VARLINK_BUFFERED_FREE || want <= c->buffered)
                return true;
        size_t grow = want - c->buffered;
        return c->peer->buffered + grow <= VARLINK_BUFFERED_PER_UID_MAX &&
               c->server->buffered + grow <= VARLINK_BUFFERED_MAX;
}

/* ---- calls ---- */

static VarlinkCall *call_free(VarlinkCall *call) {
        if (!call)
                return NULL;
        free(call->method);
        free(call->audit);
        free(call);
        return NULL;
}

void varlink_call_set_cancel(VarlinkCall *c, VarlinkCancelFn fn, void *userdata) {
        assert(c);
        c->cancel = fn;
        c->cancel_userdata = userdata;
}

uid_t varlink_call_peer_uid(const VarlinkCall *c) {
        assert(c);
        return c->uid;
}

pid_t varlink_call_peer_pid(const VarlinkCall *c) {
        assert(c);
        return c->pid;
}

bool varlink_call_peer_has(const VarlinkCall *c, VarlinkRight right) {
        assert(c);
        return (c->rights & right) == right;
}

/* The outcome of a state-changing call, for svd's log: "done", or the
 * error with its message when it has one. */
static void call_audit(VarlinkCall *call, json_t *msg) {
        const char *error = json_string_value(json_object_get(msg, "error"));
        const char *message = json_string_value(json_object_get(json_object_get(msg, "parameters"), "message"));

        if (!error)
                log_info("%s %s by uid " UID_FMT " (pid %d): done.", call->method, call->audit, call->uid,
                         (int) call->pid);
        else
                log_notice("%s %s by uid " UID_FMT " (pid %d): failed: %s%s%s%s", call->method, call->audit,
                           call->uid, (int) call->pid, error, message ? " (" : "", message ? message : "",
                           message ? ")." : ".");
        free(call->audit);
        call->audit = NULL;
}

bool varlink_call_wants_more(const VarlinkCall *c) {
        assert(c);
        return c->more;
}

const char *varlink_call_method(const VarlinkCall *c) {
        assert(c);
        return c->method;
}

static int connection_queue(VarlinkConnection *c, json_t *msg) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        int r = varlink_message_format(msg, &text, &len);
        if (r < 0)
                return r;
        if (varlink_buffer_pending(&c->output) + len > VARLINK_OUTPUT_MAX)
                return -ENOBUFS;
        /* The budget is checked against what the queue may come to hold
         * (growth doubles the allocation). */
        size_t out = c->output.allocated;
        if (c->output.end + len > out)
                out = 2 * (varlink_buffer_pending(&c->output) + len);
        if (!connection_may_hold(c, c->input.allocated + out))
                return -ENOBUFS;
        server_buffer_take(c->server, &c->output);
        r = varlink_buffer_append(&c->output, text, len);
        if (r < 0)
                return r;
        connection_account(c);
        return 0;
}

/* After a call of c queued a reply or ended. From inside the call's
 * handler, connection_run(), below on the stack, sends what was queued,
 * takes the next buffered call and sets the events, with no extra turn of
 * the loop. Otherwise the defer source does that, never from inside
 * whoever replied; it also frees a dead connection (the call's cancel
 * callback runs there). */
static void connection_kick(VarlinkConnection *c, const VarlinkCall *call) {
        if (!call->in_dispatch || c->dead)
                (void) sd_event_source_set_enabled(c->defer_source, SD_EVENT_ONESHOT);
}

/* Sends one reply object of the call; final ones end the call. */
static int call_send(VarlinkCall *call, json_t *msg, bool final) {
        int r = 0;

        assert(call);
        assert(!call->done);

        if (call->connection && !call->oneway) {
                VarlinkConnection *c = call->connection;
                r = connection_queue(c, msg);
                if (r < 0) {
                        if (server_log_allowed(c->server))
                                log_warning_errno(r, "varlink: Failed to queue the reply to %s of uid " UID_FMT
                                                  "%s, dropping connection: %m", call->method, c->uid,
                                                  r == -EMSGSIZE ? " (larger than the message limit)" : "");
                        /* Freed from its defer source, never under the replier's feet. */
                        c->dead = true;
                }
        }
        if (final && call->audit)
                call_audit(call, msg);
        json_decref(msg);
        if (!final)
                return r;

        call->done = true;
        VarlinkConnection *c = call->connection;
        if (c) {
                assert(c->current == call);
                c->current = NULL;
                call->connection = NULL;
                connection_kick(c, call);
        }
        if (!call->in_dispatch)
                call_free(call);
        return r;
}

int varlink_call_reply(VarlinkCall *c, json_t *parameters) {
        json_t *msg = json_object();
        if (!msg) {
                json_decref(parameters);
                return -ENOMEM;
        }
        json_object_set_new(msg, "parameters", parameters ? parameters : json_object());
        return call_send(c, msg, /* final= */ true);
}

int varlink_call_notify(VarlinkCall *c, json_t *parameters) {
        assert(c);
        if (!c->more) {
                /* A client that did not ask for more may drop the connection on "continues". */
                json_decref(parameters);
                return -EPROTO;
        }
        json_t *msg = json_object();
        if (!msg) {
                json_decref(parameters);
                return -ENOMEM;
        }
        json_object_set_new(msg, "continues", json_true());
        json_object_set_new(msg, "parameters", parameters ? parameters : json_object());
        int r = call_send(c, msg, /* final= */ false);
        if (c->connection)
                connection_kick(c->connection, c);
        return r;
}

size_t varlink_call_output_queued(const VarlinkCall *c) {
        assert(c);
        if (!c->connection)
                return 0;
        return varlink_buffer_pending(&c->connection->output);
}

int varlink_call_error(VarlinkCall *c, const char *error, json_t *parameters) {
        assert(error);
        json_t *msg = json_object();
        if (!msg) {
                json_decref(parameters);
                return -ENOMEM;
        }
        json_object_set_new(msg, "error", json_string(error));
        json_object_set_new(msg, "parameters", parameters ? parameters : json_object());
        return call_send(c, msg, /* final= */ true);
}

int varlink_call_error_invalid_parameter(VarlinkCall *c, const char *parameter) {
        return varlink_call_error(c, "org.varlink.service.InvalidParameter",
                                  json_pack("{s:s}", "parameter", parameter));
}

int varlink_call_error_errno(VarlinkCall *c, int error) {
        error = abs(error);
        return varlink_call_error(c, VARLINK_ERROR_INTERNAL,
                                  json_pack("{s:i,s:s,s:s}", "errno", error, "errnoName",
                                            strna(strerrorname_np(error)), "message", strerror(error)));
}

int varlink_call_check_parameters(VarlinkCall *c, json_t *parameters, const VarlinkField *fields) {
        const char *key;
        json_t *v;

        json_object_foreach(parameters, key, v) {
                const VarlinkField *f;
                for (f = fields; f->name; f++)
                        if (streq(f->name, key))
                                break;
                if (!f->name)
                        goto invalid;
                if (json_typeof(v) != f->type && !(json_is_null(v) && !f->required) &&
                    !(f->type == JSON_TRUE && json_is_boolean(v)))
                        goto invalid;
                continue;
        invalid:
                (void) varlink_call_error_invalid_parameter(c, key);
                return -EINVAL;
        }
        for (const VarlinkField *f = fields; f->name; f++)
                if (f->required && !json_object_get(parameters, f->name)) {
                        (void) varlink_call_error_invalid_parameter(c, f->name);
                        return -EINVAL;
                }
        return 0;
}

/* ---- org.varlink.service ---- */

static int method_get_info(VarlinkCall *call, json_t *parameters, void *userdata) {
        VarlinkServer *s = userdata;
        static const VarlinkField fields[] = { {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        json_t *ifaces = json_array();
        json_array_append_new(ifaces, json_string("org.varlink.service"));
        for (size_t i = 0; i < s->n_interfaces; i++)
                json_array_append_new(ifaces, json_string(s->interfaces[i].name));
        return varlink_call_reply(call, json_pack("{s:s,s:s,s:s,s:s,s:o}", "vendor", s->info.vendor, "product",
                                                  s->info.product, "version", s->info.version, "url",
                                                  s->info.url, "interfaces", ifaces));
}

static const char varlink_service_idl[] =
        "# The Varlink Service Interface is provided by every varlink service. It\n"
        "# describes the service and the interfaces it implements.\n"
        "interface org.varlink.service\n"
        "\n"
        "# Get a list of all the interfaces a service provides and information\n"
        "# about the implementation.\n"
        "method GetInfo() -> (\n"
        "  vendor: string,\n"
        "  product: string,\n"
        "  version: string,\n"
        "  url: string,\n"
        "  interfaces: []string\n"
        ")\n"
        "\n"
        "# Get the description of an interface that is implemented by this service.\n"
        "method GetInterfaceDescription(interface: string) -> (description: string)\n"
        "\n"
        "# The requested interface was not found.\n"
        "error InterfaceNotFound (interface: string)\n"
        "\n"
        "# The requested method was not found\n"
        "error MethodNotFound (method: string)\n"
        "\n"
        "# The interface defines the requested method, but the service does not\n"
        "# implement it.\n"
        "error MethodNotImplemented (method: string)\n"
        "\n"
        "# One of the passed parameters is invalid.\n"
        "error InvalidParameter (parameter: string)\n"
        "\n"
        "# Client is denied access\n"
        "error PermissionDenied ()\n"
        "\n"
        "# Method is expected to be called with 'more' set to true, but wasn't\n"
        "error ExpectedMore ()\n";

static const VarlinkInterface *server_find_interface(VarlinkServer *s, const char *name, size_t len) {
        for (size_t i = 0; i < s->n_interfaces; i++)
                if (strlen(s->interfaces[i].name) == len && strneq(s->interfaces[i].name, name, len))
                        return &s->interfaces[i];
        return NULL;
}

static int method_get_interface_description(VarlinkCall *call, json_t *parameters, void *userdata) {
        VarlinkServer *s = userdata;
        static const VarlinkField fields[] = { { "interface", JSON_STRING, true }, {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "interface"));
        const char *idl = NULL;
        if (streq(name, "org.varlink.service"))
                idl = varlink_service_idl;
        else {
                const VarlinkInterface *i = server_find_interface(s, name, strlen(name));
                if (i)
                        idl = i->idl;
        }
        if (!idl)
                return varlink_call_error(call, "org.varlink.service.InterfaceNotFound",
                                          json_pack("{s:s}", "interface", name));
        return varlink_call_reply(call, json_pack("{s:s}", "description", idl));
}

static const VarlinkMethod varlink_service_methods[] = {
        { "GetInfo", method_get_info, 0 },
        { "GetInterfaceDescription", method_get_interface_description, 0 },
        {},
};

/* ---- dispatch ---- */

/* Checks the envelope. Returns 0, or -EPROTO when the message is not a
 * varlink call at all (the connection is then closed, as sd-varlink does). */
static int call_validate(json_t *msg, const char **ret_method, json_t **ret_params, bool *ret_more,
                         bool *ret_oneway, bool *ret_upgrade) {
        const char *key;
        json_t *v;
        *ret_method = NULL;
        *ret_params = NULL;
        *ret_more = *ret_oneway = *ret_upgrade = false;

        json_object_foreach(msg, key, v) {
                if (streq(key, "method")) {
                        if (!json_is_string(v))
                                return -EPROTO;
                        *ret_method = json_string_value(v);
                } else if (streq(key, "parameters")) {
                        if (!json_is_object(v) && !json_is_null(v))
                                return -EPROTO;
                        *ret_params = json_is_object(v) ? v : NULL;
                } else if (streq(key, "more")) {
                        if (!json_is_boolean(v))
                                return -EPROTO;
                        *ret_more = json_is_true(v);
                } else if (streq(key, "oneway")) {
                        if (!json_is_boolean(v))
                                return -EPROTO;
                        *ret_oneway = json_is_true(v);
                } else if (streq(key, "upgrade")) {
                        if (!json_is_boolean(v))
                                return -EPROTO;
                        *ret_upgrade = json_is_true(v);
                } else
                        return -EPROTO;
        }
        if (!*ret_method || (*ret_more && *ret_oneway))
                return -EPROTO;
        return 0;
}

/* A JSON string's bytes with each NUL written as the six characters \u0000 (malloc'd). */
static char *method_without_nul(json_t *s) {
        const char *v = json_string_value(s);
        size_t n = json_string_length(s), nuls = 0;
        for (size_t i = 0; i < n; i++)
                nuls += v[i] == 0;
        char *out = malloc(n + nuls * 5 + 1), *p = out;
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (v[i] == 0) {
                        memcpy(p, "\\u0000", 6);
                        p += 6;
                } else
                        *p++ = v[i];
        }
        *p = 0;
        return out;
}

/* Whether v, or a string anywhere inside it, holds a NUL byte. */
static bool json_has_nul(json_t *v) {
        const char *k;
        json_t *c;
        size_t i;
        if (json_is_string(v))
                return memchr(json_string_value(v), 0, json_string_length(v)) != NULL;
        if (json_is_object(v))
                json_object_foreach(v, k, c)
                        if (json_has_nul(c))
                                return true;
        if (json_is_array(v))
                json_array_foreach(v, i, c)
                        if (json_has_nul(c))
                                return true;
        return false;
}

/* The first parameter that holds a NUL byte, or NULL. */
static const char *parameter_with_nul(json_t *params) {
        const char *k;
        json_t *c;
        json_object_foreach(params, k, c)
                if (json_has_nul(c))
                        return k;
        return NULL;
}

static bool method_name_valid(const char *m) {
        /* interface.Member: at least one dot, member starts upper-case. */
        const char *dot = strrchr(m, '.');
        return dot && dot != m && dot[1] >= 'A' && dot[1] <= 'Z';
}

/* The parameters as compact JSON (jansson escapes control characters), cut
 * at VARLINK_AUDIT_PARAMETERS_MAX bytes. */
static char *call_parameters_summary(json_t *params) {
        if (!params)
                return strdup("{}");
        char *text = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
        if (text && strlen(text) > VARLINK_AUDIT_PARAMETERS_MAX)
                strcpy(text + VARLINK_AUDIT_PARAMETERS_MAX - 3, "...");
        return text;
}

static void call_dispatch(VarlinkServer *s, VarlinkCall *call, json_t *params) {
        const char *m = call->method;
        const char *dot = strrchr(m, '.');
        const VarlinkMethod *methods = NULL;
        void *userdata = NULL;

        if (strneq(m, "org.varlink.service.", 20) && !strchr(m + 20, '.')) {
                methods = varlink_service_methods;
                userdata = s;
        } else {
                const VarlinkInterface *i = server_find_interface(s, m, (size_t) (dot - m));
                if (!i) {
                        _cleanup_free_ char *iface = strndup(m, (size_t) (dot - m));
                        (void) varlink_call_error(call, "org.varlink.service.InterfaceNotFound",
                                                  json_pack("{s:s}", "interface", iface ? iface : ""));
                        return;
                }
                methods = i->methods;
                userdata = i->userdata;
        }

        const VarlinkMethod *f;
        for (f = methods; f->name; f++)
                if (streq(f->name, dot + 1))
                        break;
        if (!f->name) {
                (void) varlink_call_error(call, "org.varlink.service.MethodNotFound", json_pack("{s:s}", "method", m));
                return;
        }
        if (f->flags & VARLINK_METHOD_WRITE) {
                _cleanup_free_ char *what = call_parameters_summary(params);
                VarlinkRight need = f->flags & VARLINK_METHOD_OWNER ? VARLINK_RIGHT_OWNER : VARLINK_RIGHT_MANAGE;
                if (!(call->rights & need)) {
                        /* Rate-limited: refusals cost the caller nothing. */
                        server_log(s, LOG_NOTICE, "%s %s by uid " UID_FMT " (pid %d): refused: Permission denied.",
                                   m, strna(what), call->uid, (int) call->pid);
                        (void) varlink_call_error(call, "org.varlink.service.PermissionDenied", NULL);
                        return;
                }
                if (!what) {
                        (void) varlink_call_error_errno(call, ENOMEM);
                        return;
                }
                call->audit = TAKE_PTR(what);
        }
        if ((f->flags & VARLINK_METHOD_REQUIRES_MORE) && !call->more) {
                (void) varlink_call_error(call, "org.varlink.service.ExpectedMore", NULL);
                return;
        }

        _cleanup_json_ json_t *empty = params ? NULL : json_object();
        int r = f->fn(call, params ? params : empty, userdata);
        if (r < 0 && !call->done)
                (void) varlink_call_error_errno(call, r);
}

/* Handles one message. Returns -EPROTO to close the connection. */
static int connection_handle_message(VarlinkConnection *c, const char *text, size_t len) {
        _cleanup_json_ json_t *msg = NULL;
        const char *method;
        json_t *params;
        bool more, oneway, upgrade;

        /* jansson refuses \u0000 unless told: a call whose strings hold one is still a call, answered
         * with an error as any other that names no method or has a bad parameter. */
        if (varlink_message_parse(text, len, &msg) < 0 && varlink_message_parse_allow_nul(text, len, &msg) < 0) {
                log_debug("varlink: unparseable message from uid " UID_FMT ", closing", c->uid);
                return -EPROTO;
        }
        if (call_validate(msg, &method, &params, &more, &oneway, &upgrade) < 0) {
                log_debug("varlink: invalid call from uid " UID_FMT ", closing", c->uid);
                return -EPROTO;
        }
        json_t *method_json = json_object_get(msg, "method");
        bool method_bad = strlen(method) != json_string_length(method_json) || !method_name_valid(method);
        const char *nul_parameter = params ? parameter_with_nul(params) : NULL;

        VarlinkCall *call = malloc(sizeof(*call)); /* (zeroed below; calloc would bypass the tcache) */
        if (!call)
                return -ENOMEM;
        *call = (VarlinkCall){
                .more = more, .oneway = oneway, .uid = c->uid, .pid = c->pid, .rights = c->rights, .in_dispatch = true
        };
        call->method = strdup(method);
        if (!call->method) {
                call_free(call);
                return -ENOMEM;
        }
        if (!oneway) {
                call->connection = c;
                c->current = call;
        }

        if (method_bad) {
                /* The name as JSON, its NUL and control characters escaped. */
                _cleanup_free_ char *quoted = json_dumps(method_json, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
                server_log(c->server, LOG_NOTICE, "varlink: call of %s from uid " UID_FMT " (pid %d): not a method name.",
                           strna(quoted), c->uid, (int) c->pid);
                /* The name back without its NULs (the text "\u0000" in their place): clients whose JSON
                 * parser refuses a NUL in a string (jansson, sd-json) can read the reply. */
                _cleanup_free_ char *shown = method_without_nul(method_json);
                (void) varlink_call_error(call, "org.varlink.service.MethodNotFound",
                                          shown ? json_pack("{s:s}", "method", shown) : NULL);
        } else if (nul_parameter)
                /* No name, path or command svd takes may hold a NUL: C would cut it short there. */
                (void) varlink_call_error_invalid_parameter(call, nul_parameter);
        else if (upgrade)
                /* svd speaks nothing but varlink on this socket. */
                (void) varlink_call_error_invalid_parameter(call, "upgrade");
        else
                call_dispatch(c->server, call, params);

        call->in_dispatch = false;
        if (call->done)
                call_free(call);
        /* else: held by a handler (oneway calls included); it frees on reply. */
        return 0;
}

/* Processes buffered calls while nothing is pending and output is not
 * piling up. Returns 1 when it stopped at the output's high mark. */
static int connection_process(VarlinkConnection *c) {
        for (;;) {
                if (c->current)
                        return 0;
                if (varlink_buffer_pending(&c->output) >= VARLINK_OUTPUT_HIGH)
                        return 1;
                const char *text;
                size_t len;
                int r = varlink_buffer_next(&c->input, &text, &len);
                if (r < 0)
                        return r;
                if (r == 0)
                        return 0;
                r = connection_handle_message(c, text, len);
                if (r < 0)
                        return r;
        }
}

static int connection_flush(VarlinkConnection *c) {
        ssize_t n = varlink_buffer_write(&c->output, c->fd);
        if (n < 0)
                return (int) n;
        if (varlink_buffer_pending(&c->output) == 0 && c->output.allocated > 0) {
                /* Drained: an idle connection holds no buffer. */
                server_buffer_done(c->server, &c->output);
                connection_account(c);
        }
        return 0;
}

/* After a protocol violation no further call is read, but the replies to
 * the peer's earlier calls, already queued, still go out before the
 * connection closes: sd-varlink, which writes before it reads the next
 * message, answers a pipelined valid call followed by garbage too. SHUT_RD
 * makes the peer's further writes fail instead of piling up unread. */
static void connection_stop_reading(VarlinkConnection *c) {
        c->read_eof = true;
        server_buffer_done(c->server, &c->input);
        connection_account(c);
        (void) shutdown(c->fd, SHUT_RD);
}

static bool connection_finished(VarlinkConnection *c) {
        return c->read_eof && !c->current && varlink_buffer_pending(&c->output) == 0;
}

/* Sets the events to wait for: input only when a call could be taken. */
static void connection_update(VarlinkConnection *c) {
        uint32_t events = 0;
        if (!c->read_eof && !c->current && varlink_buffer_pending(&c->output) < VARLINK_OUTPUT_HIGH)
                events |= EPOLLIN;
        if (varlink_buffer_pending(&c->output) > 0)
                events |= EPOLLOUT;
        (void) sd_event_source_set_io_events(c->io_source, events);
}

/* The one place a connection's I/O is advanced: flush, read, process. */
static void connection_run(VarlinkConnection *c, uint32_t revents) {
        int r;

        if (c->dead) {
                connection_free(c);
                return;
        }

        if (varlink_buffer_pending(&c->output) > 0) {
                r = connection_flush(c);
                if (r < 0) {
                        log_debug_errno(r, "varlink: write to uid " UID_FMT " failed, closing: %m", c->uid);
                        connection_free(c);
                        return;
                }
        }

        if ((revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->read_eof) {
                if (!c->current && varlink_buffer_pending(&c->output) < VARLINK_OUTPUT_HIGH) {
                        server_buffer_take(c->server, &c->input);
                        ssize_t n = varlink_buffer_read(&c->input, c->fd);
                        connection_account(c);
                        if (n == 0)
                                c->read_eof = true;
                        else if (n == -EMSGSIZE) {
                                server_log(c->server, LOG_NOTICE,
                                           "varlink: message from uid " UID_FMT " exceeds %u bytes, closing", c->uid,
                                           VARLINK_MESSAGE_MAX);
                                connection_stop_reading(c);
                        } else if (n > 0 && !connection_may_hold(c, c->buffered + 1)) {
                                server_log(c->server, LOG_NOTICE,
                                           "varlink: uid " UID_FMT " holds too much unfinished input and unread "
                                           "output (%u MiB per user, %u MiB for all), closing",
                                           c->uid, VARLINK_BUFFERED_PER_UID_MAX >> 20, VARLINK_BUFFERED_MAX >> 20);
                                connection_free(c);
                                return;
                        } else if (n < 0 && n != -EAGAIN) {
                                log_debug_errno((int) n, "varlink: read failed, closing: %m");
                                connection_free(c);
                                return;
                        }
                } else if (revents & (EPOLLHUP | EPOLLERR)) {
                        /* Both directions are gone while a call is pending:
                         * nobody can read the answer. */
                        connection_free(c);
                        return;
                }
        }

        r = connection_process(c);
        bool held_back = r > 0;
        if (r < 0) {
                if (r == -EMSGSIZE)
                        server_log(c->server, LOG_NOTICE,
                                   "varlink: message from uid " UID_FMT " exceeds %u bytes, closing", c->uid,
                                   VARLINK_MESSAGE_MAX);
                connection_stop_reading(c);
        }
        if (varlink_buffer_pending(&c->input) == 0 && c->input.allocated > 0) {
                /* Every call taken: an idle connection holds no buffer. */
                server_buffer_done(c->server, &c->input);
                connection_account(c);
        }
        if (varlink_buffer_pending(&c->output) > 0) {
                r = connection_flush(c);
                if (r < 0) {
                        connection_free(c);
                        return;
                }
        }
        if (held_back && varlink_buffer_pending(&c->output) < VARLINK_OUTPUT_HIGH)
                /* The flush made room: the calls still buffered are taken
                 * on the next turn, as no event may come for them. */
                (void) sd_event_source_set_enabled(c->defer_source, SD_EVENT_ONESHOT);
        if (connection_finished(c) && varlink_buffer_pending(&c->input) == 0) {
                connection_free(c);
                return;
        }
        if (c->read_eof && !c->current && varlink_buffer_pending(&c->output) == 0) {
                /* Unterminated bytes before EOF: a truncated call. */
                connection_free(c);
                return;
        }
        connection_update(c);
}

static int on_connection_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        connection_run(userdata, revents);
        return 0;
}

static int on_connection_defer(sd_event_source *source, void *userdata) {
        connection_run(userdata, 0);
        return 0;
}

static void server_peer_free(VarlinkServer *s, VarlinkPeer *p) {
        for (VarlinkPeer **i = &s->peers; *i; i = &(*i)->next)
                if (*i == p) {
                        *i = p->next;
                        break;
                }
        free(p);
}

/* The peer entry of uid, created if need be; NULL when out of memory. */
static VarlinkPeer *server_peer_get(VarlinkServer *s, uid_t uid) {
        for (VarlinkPeer *p = s->peers; p; p = p->next)
                if (p->uid == uid)
                        return p;
        VarlinkPeer *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        *p = (VarlinkPeer){ .uid = uid, .next = s->peers };
        s->peers = p;
        return p;
}

static void connection_free(VarlinkConnection *c) {
        if (!c)
                return;
        VarlinkServer *s = c->server;

        if (c->current) {
                VarlinkCall *call = c->current;
                c->current = NULL;
                call->connection = NULL;
                if (call->audit) {
                        /* What was asked goes on (a job keeps running); its outcome has nobody to go to. */
                        log_info("%s %s by uid " UID_FMT " (pid %d): the caller hung up before the outcome.",
                                 call->method, call->audit, call->uid, (int) call->pid);
                        free(call->audit);
                        call->audit = NULL;
                }
                if (call->cancel) {
                        VarlinkCancelFn fn = call->cancel;
                        call->cancel = NULL;
                        fn(call, call->cancel_userdata);
                }
                if (!call->in_dispatch)
                        call_free(call);
        }
        if (c->prev)
                c->prev->next = c->next;
        else
                s->connections = c->next;
        if (c->next)
                c->next->prev = c->prev;
        s->n_connections--;

        c->io_source = sd_event_source_disable_unref(c->io_source);
        c->defer_source = sd_event_source_disable_unref(c->defer_source);
        safe_close(c->fd);
        server_buffer_done(s, &c->input);
        server_buffer_done(s, &c->output);
        if (c->peer) {
                connection_account(c);
                if (--c->peer->n_connections == 0)
                        server_peer_free(s, c->peer);
        }
        free(c);

        /* A slot is free again. */
        if (s->listen_source && !s->accept_paused)
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
}

/* Whether the peer of fd is a member of gid: its primary group (cred) or
 * one of the supplementary groups the kernel recorded at connect()
 * (SO_PEERGROUPS, Linux 4.13). */
static int peer_in_group(int fd, const struct ucred *cred, gid_t gid) {
        if (gid == GID_INVALID)
                return false;
        if (cred->gid == gid)
                return true;

        gid_t small[64];
        _cleanup_free_ gid_t *big = NULL;
        gid_t *groups = small;
        socklen_t len = sizeof(small);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
                if (errno == ENOPROTOOPT)
                        return false; /* FIXME: drop when 4.13 is the oldest kernel: the primary group only */
                if (errno != ERANGE || len > VARLINK_PEER_GROUPS_MAX * sizeof(gid_t))
                        return -errno;
                /* len is the size needed now. */
                big = malloc(len);
                if (!big)
                        return -ENOMEM;
                groups = big;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
                        return -errno;
        }
        for (size_t i = 0; i < len / sizeof(gid_t); i++)
                if (groups[i] == gid)
                        return true;
        return false;
}

/* The peer's rights, from what the kernel recorded at connect(). */
static int peer_rights(VarlinkServer *s, int fd, const struct ucred *cred, VarlinkRight *ret) {
        if (cred->uid == 0 || cred->uid == s->owner) {
                *ret = VARLINK_RIGHT_MANAGE | VARLINK_RIGHT_OUTPUT | VARLINK_RIGHT_OWNER;
                return 0;
        }
        int manage = peer_in_group(fd, cred, s->groups.manage);
        if (manage < 0)
                return manage;
        int output = peer_in_group(fd, cred, s->groups.output);
        if (output < 0)
                return output;
        *ret = (manage ? VARLINK_RIGHT_MANAGE : 0) | (output ? VARLINK_RIGHT_OUTPUT : 0);
        return 0;
}

void varlink_server_set_groups(VarlinkServer *s, const VarlinkGroups *groups) {
        assert(s);
        assert(groups);
        s->groups = *groups;
}

/* Takes fd, a connected socket (nonblocking already when the caller says
 * so), as a connection: *ret, when given. */
static int server_add_connection(VarlinkServer *s, int fd, bool nonblocking, VarlinkConnection **ret) {
        _cleanup_close_ int owned = fd;
        struct ucred cred = {};
        socklen_t l = sizeof(cred);
        VarlinkRight rights;

        assert(s);
        assert(fd >= 0);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) < 0)
                return -errno;
        int r = peer_rights(s, fd, &cred, &rights);
        if (r < 0)
                return r;
        bool privileged = cred.uid == 0 || cred.uid == s->owner;
        if (s->n_connections >= VARLINK_CONNECTIONS_MAX - (privileged ? 0 : VARLINK_CONNECTIONS_RESERVED))
                return -EMFILE;
        VarlinkPeer *peer = server_peer_get(s, cred.uid);
        if (!peer)
                return -ENOMEM;
        if (peer->n_connections >= VARLINK_CONNECTIONS_PER_UID_MAX)
                return -EDQUOT; /* (the entry has connections: nothing to free) */
        if (!nonblocking && fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
                r = -errno;
                if (peer->n_connections == 0)
                        server_peer_free(s, peer);
                return r;
        }

        VarlinkConnection *c = malloc(sizeof(*c)); /* (zeroed below; calloc would bypass the tcache) */
        if (!c) {
                if (peer->n_connections == 0)
                        server_peer_free(s, peer);
                return -ENOMEM;
        }
        *c = (VarlinkConnection){ .server = s, .fd = TAKE_FD(owned), .uid = cred.uid, .pid = cred.pid,
                                  .rights = rights, .peer = peer, .privileged = privileged };
        peer->n_connections++;
        varlink_buffer_init(&c->input, VARLINK_MESSAGE_MAX);
        varlink_buffer_init(&c->output, VARLINK_OUTPUT_MAX);
        c->next = s->connections;
        if (s->connections)
                s->connections->prev = c;
        s->connections = c;
        s->n_connections++;

        r = sd_event_add_io(s->event, &c->io_source, c->fd, EPOLLIN, on_connection_io, c);
        if (r >= 0)
                r = sd_event_add_defer(s->event, &c->defer_source, on_connection_defer, c);
        if (r >= 0)
                r = sd_event_source_set_enabled(c->defer_source, SD_EVENT_OFF);
        if (r < 0) {
                connection_free(c);
                return r;
        }
        if (ret)
                *ret = c;
        return 0;
}

int varlink_server_add_connection(VarlinkServer *s, int fd) {
        return server_add_connection(s, fd, /* nonblocking= */ false, NULL);
}

/* ---- listening ---- */

static int on_accept_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        VarlinkServer *s = userdata;
        s->accept_paused = false;
        if (s->n_connections < VARLINK_CONNECTIONS_MAX)
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
        return 0;
}

static int on_listen(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        VarlinkServer *s = userdata;

        int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (cfd < 0) {
                int r = -errno;
                if (IN_SET(r, -EAGAIN, -EINTR, -ECONNABORTED))
                        return 0;
                if (server_log_allowed(s))
                        log_warning_errno(r, "varlink: Failed to accept connection, pausing: %m");
                /* EMFILE and friends: stop listening for a moment instead of
                 * spinning; existing connections are served meanwhile. The
                 * timer exists since start-up: arming it needs no new fd. */
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
                s->accept_paused = true;
                if (sd_event_source_set_time_relative(s->accept_retry_source, VARLINK_ACCEPT_RETRY_USEC) < 0 ||
                    sd_event_source_set_enabled(s->accept_retry_source, SD_EVENT_ONESHOT) < 0)
                        s->accept_paused = false; /* then a closing connection resumes it */
                return 0;
        }
        VarlinkConnection *c;
        int r = server_add_connection(s, cfd, /* nonblocking= */ true, &c);
        if (r >= 0)
                /* A client writes its call right after connect(): it is
                 * usually there already, and is answered now rather than
                 * after another turn of the loop. */
                connection_run(c, EPOLLIN);
        if (r < 0 && server_log_allowed(s))
                log_warning_errno(r, "varlink: Refusing connection: %s",
                                  r == -EMFILE  ? "too many connections"
                                  : r == -EDQUOT ? "too many connections of this user"
                                                 : strerror(-r));
        if (s->n_connections >= VARLINK_CONNECTIONS_MAX)
                (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
        return 0;
}

/* Binds and listens on path. */
static int server_bind(const char *path, int *ret_fd) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;

        /* A live svd on this path must not be disturbed: only a socket nobody
         * answers on is stale. */
        _cleanup_close_ int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe < 0)
                return -errno;
        if (connect(probe, (struct sockaddr *) &sa, sizeof(sa)) == 0)
                return -EADDRINUSE;
        (void) unlink(path);

        mode_t old = umask(0111);
        int r = bind(fd, (struct sockaddr *) &sa, sizeof(sa));
        umask(old);
        if (r < 0)
                return -errno;
        if (listen(fd, SOMAXCONN) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int server_new(sd_event *event, const char *path, int listen_fd, const VarlinkServerInfo *info, uid_t owner,
                      VarlinkServer **ret) {
        _cleanup_(varlink_server_freep) VarlinkServer *s = NULL;
        _cleanup_close_ int adopt = listen_fd;
        int r;

        assert(event);
        assert(path);
        assert(info);
        assert(ret);

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->listen_fd = -EBADF;
        s->event = sd_event_ref(event);
        s->info = *info;
        s->owner = owner;
        s->groups = (VarlinkGroups){ .manage = GID_INVALID, .output = GID_INVALID };
        s->path = strdup(path);
        if (!s->path)
                return -ENOMEM;

        if (adopt >= 0) {
                /* Bound and listening already (a re-exec): the socket file stays as it is. */
                s->listen_fd = TAKE_FD(adopt);
                if (fcntl(s->listen_fd, F_SETFD, FD_CLOEXEC) < 0 || fcntl(s->listen_fd, F_SETFL, O_NONBLOCK) < 0)
                        return -errno;
        } else {
                r = server_bind(path, &s->listen_fd);
                if (r < 0)
                        return r;
        }
        r = sd_event_add_io(event, &s->listen_source, s->listen_fd, EPOLLIN, on_listen, s);
        if (r < 0)
                return r;
        /* Created now, disabled, so that pausing accept() after EMFILE needs no timerfd then. */
        r = sd_event_add_time_relative(event, &s->accept_retry_source, CLOCK_MONOTONIC, VARLINK_ACCEPT_RETRY_USEC, 0,
                                       on_accept_retry, s);
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(s->accept_retry_source, SD_EVENT_OFF);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(s);
        return 0;
}

int varlink_server_new(sd_event *event, const char *path, const VarlinkServerInfo *info, uid_t owner,
                       VarlinkServer **ret) {
        return server_new(event, path, -EBADF, info, owner, ret);
}

int varlink_server_new_from_fd(sd_event *event, const char *path, int listen_fd, const VarlinkServerInfo *info,
                               uid_t owner, VarlinkServer **ret) {
        assert(listen_fd >= 0);
        return server_new(event, path, listen_fd, info, owner, ret);
}

int varlink_server_listen_fd(const VarlinkServer *s) {
        return s ? s->listen_fd : -EBADF;
}

int varlink_call_connection_fd(const VarlinkCall *c) {
        assert(c);
        const VarlinkConnection *conn = c->connection;
        if (!conn || c->oneway || c->more || conn->dead || conn->read_eof)
                return -ENOTCONN;
        /* Nothing may be lost in the hand-over: no reply still queued, no
         * further call read already. */
        if (varlink_buffer_pending(&conn->output) > 0 || conn->input.start < conn->input.end)
                return -EBUSY;
        return conn->fd;
}

int varlink_server_add_connection_reply(VarlinkServer *s, int fd, json_t *parameters) {
        json_t *msg = json_object();
        if (!msg || (parameters && json_object_set_new(msg, "parameters", parameters) < 0)) {
                if (!msg)
                        json_decref(parameters);
                json_decref(msg);
                safe_close(fd);
                return -ENOMEM;
        }
        VarlinkConnection *c;
        int r = server_add_connection(s, fd, /* nonblocking= */ false, &c);
        if (r < 0) {
                json_decref(msg);
                return r;
        }
        r = connection_queue(c, msg);
        json_decref(msg);
        if (r < 0) {
                connection_free(c);
                return r;
        }
        connection_update(c);
        return 0;
}

int varlink_server_add_interface(VarlinkServer *s, const char *name, const char *idl,
                                 const VarlinkMethod *methods, void *userdata) {
        assert(s);
        if (s->n_interfaces >= VARLINK_INTERFACES_MAX)
                return -E2BIG;
        s->interfaces[s->n_interfaces++] =
                (VarlinkInterface){ .name = name, .idl = idl, .methods = methods, .userdata = userdata };
        return 0;
}

size_t varlink_server_n_connections(const VarlinkServer *s) {
        return s ? s->n_connections : 0;
}

VarlinkServer *varlink_server_free(VarlinkServer *s) {
        if (!s)
                return NULL;
        while (s->connections)
                connection_free(s->connections);
        s->listen_source = sd_event_source_disable_unref(s->listen_source);
        s->accept_retry_source = sd_event_source_disable_unref(s->accept_retry_source);
        s->trim_source = sd_event_source_disable_unref(s->trim_source);
        for (size_t i = 0; i < s->n_spare; i++)
                free(s->spare[i].data);
        if (s->listen_fd >= 0) {
                safe_close(s->listen_fd);
                if (s->path)
                        (void) unlink(s->path);
        }
        sd_event_unref(s->event);
        free(s->path);
        free(s);
        return NULL;
}
