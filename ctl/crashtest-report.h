/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What svd-crashtest finds and how it says so. A Round is the record of one
 * round: what was dealt when, what of the killed trees was left, how long
 * the recovery took, and why the round failed (every reason, in order).
 * The report prints a line per round (on stderr under --json), then the
 * summary (medians and p95 of the times to last death and to recover), the
 * chart (gnuplot) and, under --json, every round and the summary as one
 * JSON object on stdout.
 */

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "crashtest-fault.h"
#include "macros.h"

#define TEXT_MAX 512U /* bytes of each text of a round (targets, reasons, names), cut beyond */

/* The workload's own figures for a round: "KEY=VALUE" lines it writes on
 * the descriptor $SVD_CRASHTEST_COUNTERS_FD (acknowledged, failed,
 * indeterminate operations...); the last value of each key counts. */
#define COUNTERS_MAX 16U
#define COUNTER_NAME_MAX 32U
typedef struct Counters {
        size_t n;
        char name[COUNTERS_MAX][COUNTER_NAME_MAX];
        int64_t value[COUNTERS_MAX];
} Counters;

/* Takes one line "KEY=VALUE" (KEY of letters, digits, '_', '-', '.'; VALUE a
 * decimal integer): false for anything else, or a new key beyond COUNTERS_MAX. */
bool counters_set_line(Counters *c, const char *line);

typedef struct Round {
        unsigned number;
        Fault fault;
        char targets[TEXT_MAX];
        char moment[TEXT_MAX];
        char mode[32];
        char via[48];       /* how the fault was dealt: sigkill, sigterm, sigstop, freeze, oom-killer(+N) */
        uint64_t oom_usage; /* svd-oom: svd's memory.current when its limit was lowered */
        uint64_t oom_kills; /* svd-oom: what memory.events oom_kill counted */
        bool fired;
        size_t tracked;
        size_t survivors;
        size_t zombies;
        char survivor_names[TEXT_MAX];
        char workload[64]; /* --workload: "running", or how and when it ended by itself */
        Counters counters; /* what the workload reported */
        char trigger[TEXT_MAX];     /* an event moment: the line or state change that matched */
        uint64_t trigger_usec;      /* when that happened (CLOCK_REALTIME): svd's time of the line or
                                     * change, the runner's reading of a marker or of svd's log */
        int64_t trigger_lag_usec;   /* from then to the fault; -1: no event moment */
        char svd_doing[TEXT_MAX];        /* a fault of svd's: what svd was doing at that moment */
        char survivor_details[4 * TEXT_MAX]; /* one line per survivor: proc_describe() */
        int64_t last_death_usec; /* -1: not measured */
        int64_t recover_usec;    /* -1: did not recover */
        bool cut;                /* power-loss: the layers cut, and what they dropped */
        uint64_t dropped_bytes;
        size_t dropped_files, dropped_names, torn_files;
        char dropped_list[TEXT_MAX]; /* the files whose data were dropped */
        char missing[TEXT_MAX];
        int check_rc; /* -1: no check */
        char check_log[PATH_MAX];
        uint64_t fault_realtime_usec;
        bool failed;
        char reason[TEXT_MAX];
} Round;

/* Appends s to the comma-separated list in buf; leaves it when it would not fit. */
void text_append(char *buf, size_t size, const char *s);
/* Fails the round, with the reason appended to those it has. */
_printf_(2, 3) void round_fail(Round *rd, const char *fmt, ...);

/* "round N ok fault=... targets=... at=... ... check=ok", a line on f. */
void round_print(const Round *rd, FILE *f);

/* The rounds so far, for the summary and the JSON. */
typedef struct Report {
        json_t *rounds;             /* each round_json() */
        int64_t *deaths, *recovers, *lags; /* the times measured, in usec */
        size_t n_deaths, n_recovers, n_lags, allocated;
        unsigned done, failures;
        Counters totals; /* the rounds' counters, summed per key */
} Report;

/* Counts the round and keeps its times; -ENOMEM (the round counted, not kept) when out of memory. */
int report_add(Report *rp, const Round *rd);
/* The summary line on lines, the chart (--chart) and the JSON (--json, on stdout) of the run in dir
 * with svd in mode, which took elapsed_usec. Frees the report. */
/* The summary, the chart and the JSON; -EIO when the chart could not be drawn (said on stderr). */
int report_finish(Report *rp, FILE *lines, const char *dir, const char *mode, uint64_t elapsed_usec);
