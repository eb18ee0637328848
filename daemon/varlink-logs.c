/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Logs and the log tail on the wire: LogLine objects, followers fed through
 * the log's watcher callbacks. */
#include "varlink-logs.h"

#include <stdlib.h>

#include "basic/list.h"
#include "basic/macros.h"
#include "basic/utf8.h"

typedef struct LogFollower {
        LogWatcher watcher; /* first: the callbacks get it */
        ServiceLog *log;
        VarlinkCall *call;
        uint64_t dropped; /* lines skipped since its last reply */
} LogFollower;

json_t *log_line_to_json(const LogLine *line) {
        _cleanup_free_ char *text = utf8_escape_invalid(line->text, line->len);
        if (!text)
                return NULL;
        json_t *o = json_pack("{s:I,s:s,s:s}", "timeUsec", (json_int_t) line->usec, "stream",
                              log_stream_to_string(line->stream), "message", text);
        if (o && (line->flags & LOGBUF_LINE_SPLIT))
                json_object_set_new(o, "split", json_true());
        if (o && (line->flags & LOGBUF_LINE_PARTIAL))
                json_object_set_new(o, "partial", json_true());
        return o;
}

/* Up to n of the newest lines whose JSON fits in VARLINK_LOGS_REPLY_BYTES_MAX, oldest first. */
json_t *varlink_log_lines(ServiceLog *l, uint64_t n) {
        size_t count = 0, bytes = 0;
        json_t *a = json_array();
        if (!a)
                return NULL;
        size_t want = n < l->buffer.n_lines ? (size_t) n : l->buffer.n_lines;
        const LogLine *first = logbuf_last(&l->buffer, want);
        _cleanup_free_ json_t **objs = malloc((want ?: 1) * sizeof(json_t *));
        if (!objs) {
                json_decref(a);
                return NULL;
        }
        for (const LogLine *line = first; line && count < want; line = line->next)
                objs[count++] = log_line_to_json(line);
        size_t start = count;
        while (start > 0) {
                size_t sz = objs[start - 1] ? json_dumpb(objs[start - 1], NULL, 0, JSON_COMPACT) + 1 : 0;
                if (bytes + sz > VARLINK_LOGS_REPLY_BYTES_MAX)
                        break;
                bytes += sz;
                start--;
        }
        for (size_t i = 0; i < count; i++) {
                if (i >= start && objs[i])
                        json_array_append_new(a, objs[i]);
                else
                        json_decref(objs[i]);
        }
        return a;
}

static void on_follower_cancel(VarlinkCall *call, void *userdata) {
        LogFollower *f = userdata;
        service_log_unwatch(f->log, &f->watcher); /* the peer went away; varlink.c frees the call */
        free(f);
}

static void on_follower_line(LogWatcher *w, const LogLine *line) {
        LogFollower *f = (LogFollower *) w;

        if (varlink_call_output_queued(f->call) > VARLINK_LOGS_BACKLOG_MAX) {
                f->dropped++;
                return;
        }
        json_t *lines = json_array();
        json_array_append_new(lines, log_line_to_json(line));
        json_t *p = json_pack("{s:o}", "lines", lines);
        if (p && f->dropped > 0)
                json_object_set_new(p, "dropped", json_integer((json_int_t) f->dropped));
        f->dropped = 0;
        /* A failure drops the connection; the cancel callback frees f later. */
        (void) varlink_call_notify(f->call, p);
}

static void on_follower_closed(LogWatcher *w) {
        LogFollower *f = (LogFollower *) w;
        VarlinkCall *call = f->call;

        /* The stream ends with the service. */
        varlink_call_set_cancel(call, NULL, NULL);
        free(f);
        (void) varlink_call_reply(call, json_pack("{s:[]}", "lines"));
}

void varlink_log_query(ServiceLog *l, VarlinkCall *call, uint64_t lines, bool follow) {
        assert(l);
        assert(call);

        json_t *a = varlink_log_lines(l, lines);
        if (!a) {
                (void) varlink_call_error_errno(call, ENOMEM);
                return;
        }
        json_t *p = json_pack("{s:o}", "lines", a);
        if (l->dropped > 0 && p)
                json_object_set_new(p, "droppedTotal", json_integer((json_int_t) l->dropped));
        if (!follow) {
                (void) varlink_call_reply(call, p);
                return;
        }
        LogFollower *f = calloc(1, sizeof(*f));
        if (!f) {
                json_decref(p);
                (void) varlink_call_error_errno(call, ENOMEM);
                return;
        }
        *f = (LogFollower){
                .watcher = { .line = on_follower_line, .closed = on_follower_closed },
                .log = l,
                .call = call,
        };
        if (service_log_watch(l, &f->watcher) < 0) {
                free(f);
                json_decref(p);
                (void) varlink_call_error(call, "io.svd.Manager.TooManyFollowers",
                                          json_pack("{s:s,s:i}", "name", l->name, "max", LOGSTREAM_WATCHERS_MAX));
                return;
        }
        varlink_call_set_cancel(call, on_follower_cancel, f);
        (void) varlink_call_notify(call, p);
}
