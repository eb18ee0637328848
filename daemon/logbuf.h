/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The lines a service wrote, in memory: a line splitter that turns a byte
 * stream into lines, a ring buffer that keeps the most recent lines of one
 * service within a bound on lines and on bytes, and a rate limit that
 * counts what a flood makes svd drop. Pure data structures: no fds, no
 * event loop, no logging, so that tests/unit/test-logbuf.c can drive them.
 *
 * A line is kept as the bytes the service wrote (any byte but '\n', NUL
 * included), without its newline. A line longer than LOGBUF_LINE_MAX is cut
 * into pieces of LOGBUF_LINE_MAX bytes, each flagged LOGBUF_LINE_SPLIT but the
 * last; a stream that ends without a newline gives a last line flagged
 * LOGBUF_LINE_PARTIAL. Conversion to valid UTF-8 happens only on the way out
 * (utf8_escape_invalid(), when a line becomes JSON).
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes in one line; longer ones are split (systemd's journald cuts at 48 KiB). */
#define LOGBUF_LINE_MAX 4096U
/* What one service's ring keeps: lines, and bytes (text plus per-line overhead). */
#define LOGBUF_LINES_MAX 1000U
#define LOGBUF_BYTES_MAX (256U << 10)
/* Lines a service may log per interval; more are dropped and counted (journald: 10000 per 30 s). */
#define LOGBUF_RATE_BURST 10000U
#define LOGBUF_RATE_INTERVAL_USEC (1 * 1000000ULL)

typedef enum LogStream {
        LOGBUF_STREAM_STDOUT,
        LOGBUF_STREAM_STDERR,
        LOGBUF_STREAM_SVD, /* svd's own notes in the service's log ("N lines dropped") */
        _LOGBUF_STREAM_MAX,
        _LOGBUF_STREAM_INVALID = -EINVAL,
} LogStream;

const char *log_stream_to_string(LogStream s);

typedef enum LogLineFlags {
        LOGBUF_LINE_SPLIT = 1 << 0,   /* cut at LOGBUF_LINE_MAX; the rest is the next line */
        LOGBUF_LINE_PARTIAL = 1 << 1, /* the stream ended without a newline */
} LogLineFlags;

typedef struct LogLine {
        struct LogLine *next, *prev; /* newer, older */
        uint64_t seqnum; /* per ring, from 1 */
        uint64_t usec;   /* CLOCK_REALTIME when svd read it */
        LogStream stream;
        unsigned flags;  /* LogLineFlags */
        size_t len;
        char text[]; /* len bytes, then a NUL not counted in len */
} LogLine;

typedef struct LogBuffer {
        LogLine *head, *tail; /* oldest, newest */
        size_t n_lines;
        size_t n_bytes; /* text plus sizeof(LogLine) per line */
        size_t max_lines, max_bytes;
        uint64_t next_seqnum;
        uint64_t evicted; /* lines pushed out by newer ones */
} LogBuffer;

void logbuf_init(LogBuffer *b, size_t max_lines, size_t max_bytes);
void logbuf_done(LogBuffer *b);

/* Appends a copy of the line, evicting the oldest lines until both bounds
 * hold. A line larger than max_bytes on its own is cut to fit. Returns 0 and
 * the stored line in *ret (may be NULL), or -ENOMEM. */
int logbuf_append(LogBuffer *b, LogStream stream, uint64_t usec, unsigned flags, const char *text, size_t len,
                  const LogLine **ret);

/* The first of the last n lines (the oldest when n >= n_lines; NULL when
 * n is 0 or the ring is empty), found from the newest line; walk on with
 * ->next. */
const LogLine *logbuf_last(const LogBuffer *b, size_t n);

typedef void (*LogLineFn)(const char *text, size_t len, unsigned flags, void *userdata);

/* buf (LOGBUF_LINE_MAX bytes) is allocated only while a partial line has to
 * be kept: a loaded service that never ran, or whose lines arrive whole,
 * costs no buffer (10 000 units: 80 MB less). */
typedef struct LogSplitter {
        char *buf;
        size_t len;
} LogSplitter;

/* Feeds bytes; calls fn for every complete line (and every LOGBUF_LINE_MAX
 * piece). When the buffer for a partial line cannot be allocated, the
 * partial line is handed out at once with LOGBUF_LINE_PARTIAL: nothing is lost. */
void log_splitter_feed(LogSplitter *s, const char *data, size_t n, LogLineFn fn, void *userdata);
/* End of stream: emits what is left as a LOGBUF_LINE_PARTIAL line. */
void log_splitter_flush(LogSplitter *s, LogLineFn fn, void *userdata);
/* Frees the buffer; a partial line in it is lost (flush first). */
void log_splitter_done(LogSplitter *s);

typedef struct LogRateLimit {
        uint64_t begin_usec; /* start of the current interval (CLOCK_MONOTONIC) */
        unsigned n;          /* lines in it */
        uint64_t dropped;    /* dropped since the last report */
} LogRateLimit;

/* true: the line may be logged. false: drop it (counted in ->dropped).
 * *ret_report is set to the number of lines dropped in earlier intervals
 * when a new interval begins with some to report (then ->dropped is reset),
 * else to 0: the caller logs "N lines dropped" before this line. */
bool log_rate_limit_test(LogRateLimit *rl, uint64_t now_usec, uint64_t *ret_report);
