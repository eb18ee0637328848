/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Service output lines: the splitter, the ring buffer, the rate limit. */
#include "logbuf.h"

#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/string-table.h"

static const char *const log_stream_table[_LOGBUF_STREAM_MAX] = {
        [LOGBUF_STREAM_STDOUT] = "stdout",
        [LOGBUF_STREAM_STDERR] = "stderr",
        [LOGBUF_STREAM_SVD] = "svd",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(log_stream, LogStream);

void logbuf_init(LogBuffer *b, size_t max_lines, size_t max_bytes) {
        assert(b);
        assert(max_lines > 0);
        assert(max_bytes > sizeof(LogLine));
        *b = (LogBuffer){ .max_lines = max_lines, .max_bytes = max_bytes, .next_seqnum = 1 };
}

static void logbuf_drop_oldest(LogBuffer *b) {
        LogLine *l = b->head;

        assert(l);
        b->head = l->next;
        if (b->head)
                b->head->prev = NULL;
        else
                b->tail = NULL;
        b->n_lines--;
        b->n_bytes -= sizeof(LogLine) + l->len;
        b->evicted++;
        free(l);
}

void logbuf_done(LogBuffer *b) {
        if (!b)
                return;
        while (b->head)
                logbuf_drop_oldest(b);
}

int logbuf_append(LogBuffer *b, LogStream stream, uint64_t usec, unsigned flags, const char *text, size_t len,
                  const LogLine **ret) {
        assert(b);
        assert(text || len == 0);

        if (len > b->max_bytes - sizeof(LogLine)) {
                len = b->max_bytes - sizeof(LogLine);
                flags |= LOGBUF_LINE_SPLIT;
        }
        LogLine *l = malloc(sizeof(LogLine) + len + 1);
        if (!l)
                return -ENOMEM;
        *l = (LogLine){ .seqnum = b->next_seqnum++, .usec = usec, .stream = stream, .flags = flags, .len = len };
        if (len > 0)
                memcpy(l->text, text, len);
        l->text[len] = '\0';

        while (b->head && (b->n_lines + 1 > b->max_lines || b->n_bytes + sizeof(LogLine) + len > b->max_bytes))
                logbuf_drop_oldest(b);

        l->prev = b->tail;
        if (b->tail)
                b->tail->next = l;
        else
                b->head = l;
        b->tail = l;
        b->n_lines++;
        b->n_bytes += sizeof(LogLine) + len;
        if (ret)
                *ret = l;
        return 0;
}

/* Walks back from the newest line: a status query asking for the last few
 * lines of a full ring touches those lines, not the whole ring. */
const LogLine *logbuf_last(const LogBuffer *b, size_t n) {
        assert(b);
        if (n == 0 || !b->tail)
                return NULL;
        const LogLine *l = b->tail;
        for (size_t k = 1; k < n && l->prev; k++)
                l = l->prev;
        return l;
}

void log_splitter_feed(LogSplitter *s, const char *data, size_t n, LogLineFn fn, void *userdata) {
        assert(s);
        assert(fn);

        while (n > 0) {
                const char *nl = memchr(data, '\n', n);
                size_t chunk = nl ? (size_t) (nl - data) : n;

                if (s->len == 0) {
                        /* The common case, no copy: whole lines and pieces
                         * of LOGBUF_LINE_MAX straight from data. */
                        if (chunk > LOGBUF_LINE_MAX) {
                                fn(data, LOGBUF_LINE_MAX, LOGBUF_LINE_SPLIT, userdata);
                                data += LOGBUF_LINE_MAX;
                                n -= LOGBUF_LINE_MAX;
                                continue;
                        }
                        if (nl) {
                                fn(data, chunk, 0, userdata);
                                data += chunk + 1;
                                n -= chunk + 1;
                                continue;
                        }
                        if (!s->buf)
                                s->buf = malloc(LOGBUF_LINE_MAX);
                        if (!s->buf) {
                                fn(data, chunk, LOGBUF_LINE_PARTIAL, userdata);
                                return;
                        }
                }

                size_t room = LOGBUF_LINE_MAX - s->len;
                if (chunk > room) {
                        /* The line outgrows LOGBUF_LINE_MAX: hand out a full piece. */
                        memcpy(s->buf + s->len, data, room);
                        fn(s->buf, LOGBUF_LINE_MAX, LOGBUF_LINE_SPLIT, userdata);
                        s->len = 0;
                        data += room;
                        n -= room;
                        continue;
                }
                if (!nl) {
                        memcpy(s->buf + s->len, data, chunk);
                        s->len += chunk;
                        return;
                }
                memcpy(s->buf + s->len, data, chunk);
                fn(s->buf, s->len + chunk, 0, userdata);
                s->len = 0;
                data += chunk + 1;
                n -= chunk + 1;
        }
}

void log_splitter_flush(LogSplitter *s, LogLineFn fn, void *userdata) {
        assert(s);
        if (s->len == 0)
                return;
        fn(s->buf, s->len, LOGBUF_LINE_PARTIAL, userdata);
        s->len = 0;
}

void log_splitter_done(LogSplitter *s) {
        assert(s);
        free(s->buf);
        s->buf = NULL;
        s->len = 0;
}

bool log_rate_limit_test(LogRateLimit *rl, uint64_t now_usec, uint64_t *ret_report) {
        assert(rl);
        assert(ret_report);

        *ret_report = 0;
        if (rl->begin_usec == 0 || now_usec < rl->begin_usec || now_usec - rl->begin_usec >= LOGBUF_RATE_INTERVAL_USEC) {
                rl->begin_usec = now_usec ?: 1;
                rl->n = 0;
                *ret_report = rl->dropped;
                rl->dropped = 0;
        }
        if (rl->n >= LOGBUF_RATE_BURST) {
                rl->dropped++;
                return false;
        }
        rl->n++;
        return true;
}
