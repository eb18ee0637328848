/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svd-crashtest's command-line options, its only globals (as in svctl).
 * crashtest.c defines them and sets them from argv before the first round;
 * the runner, the workload, the rounds and the report only read them.
 */

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "crashtest-fault.h"

/* How the stop faults stop: the cgroup freezer where svd's or the service's
 * cgroup allows it, else SIGSTOP (auto); or only the one asked for. */
typedef enum StopBy {
        STOP_BY_AUTO,
        STOP_BY_FREEZE,
        STOP_BY_SIGNAL,
} StopBy;

typedef enum AtKind {
        _AT_INVALID = -1,
        AT_RANDOM,
        AT_DELAY,
        AT_STATE,
        AT_LOG,
        AT_MARKER,
        AT_SVD_LOG,
} AtKind;

extern const char *arg_units; /* the unit directory */
extern const char *arg_svd;   /* the svd binary */
extern const char *arg_dir;   /* socket, state and logs; NULL: a new temporary directory */
extern bool arg_fallback;     /* --mode=fallback */
extern char **arg_services;   /* the services to start and expect back; none: the wanted ones */
extern size_t arg_n_services;
extern const char *arg_probe; /* sh -c commands, or NULL */
extern const char *arg_workload;
extern unsigned arg_round_only; /* --round N: that round of the seed's schedule alone */
extern char *arg_replay;        /* the command line that replays a round, but --seed and --round */
extern bool arg_workload_may_exit;
extern char **arg_keep_data; /* --keep-data: copied into DIR/round-N.data/ when a round failed */
extern size_t arg_n_keep_data; /* a workload that ended before the fault does not fail the round */
extern char **arg_data; /* --data: the directories a power-loss fault cuts */
extern size_t arg_n_data;
extern const char *arg_powerfs; /* the svd-powerfs binary */
extern const char *arg_check;
extern uint64_t arg_check_timeout_usec; /* --check-timeout: a check that runs longer is killed and fails */
/* The signal (SIGINT, SIGTERM) that interrupted the runner, or 0: the run ends after the round. */
extern volatile sig_atomic_t runner_interrupted;
extern bool arg_fault_set[_FAULT_MAX]; /* the faults a round picks from */
extern char **arg_targets;             /* the services a service fault picks from; none: all wanted */
extern size_t arg_n_targets;
/* The moment of the fault: a random delay in [min, max], a fixed one (min), a state of a service,
 * a log line of a service or a marker line of the workload (the regular expression arg_at_regex). */
extern AtKind arg_at;
extern uint64_t arg_at_min_usec, arg_at_max_usec;
extern char *arg_at_name;
extern char *arg_at_value;
extern regex_t arg_at_regex;
extern uint64_t arg_seed;
extern unsigned arg_rounds;        /* 0: as many as --duration allows */
extern uint64_t arg_duration_usec; /* 0: --rounds alone */
extern bool arg_stop_on_failure;
extern bool arg_json;
extern bool arg_keep;
extern const char *arg_chart;  /* the chart's PNG file, or NULL */
extern uint64_t arg_stop_usec; /* how long the stop faults hold */
extern StopBy arg_stop_by;
extern uint64_t arg_ready_timeout_usec;
extern uint64_t arg_death_timeout_usec;
extern uint64_t arg_recover_timeout_usec;
extern uint64_t arg_trigger_timeout_usec;
