/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The runner and its private svd. The runner starts and owns its own svd
 * (own socket and state directory, on the given unit directory) as a child,
 * waits for its READY=1 (from svd's pid only, on a notify socket bound only
 * meanwhile), asks it for its mode, the wanted services and their states,
 * starts them, and subscribes to its events. The runner is a child
 * subreaper, so it also reaps what escaped svd's services.
 *
 * The runner's own failures (not a round's findings) are printed at once
 * and kept in r->error for the round that met them; they return -EINVAL.
 * A call that a re-exec of svd cuts is made again, for up to
 * CALL_TIMEOUT_USEC, as long as svd runs.
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "crashtest-cgroup.h"
#include "crashtest-report.h"
#include "macros.h"
#include "time-util.h"
#include "varlink-client.h"

#define CALL_TIMEOUT_USEC (30 * USEC_PER_SEC)
#define SERVICES_MAX 1024U
#define LINE_MAX_BYTES 4096U /* of the workload's output, for the marker; cut beyond */
#define RUNNER_ERROR_MAX 512U
/* Services whose output a round follows, a connection each: well below svd's connections per uid
 * (1024), which the workload's and check's own calls share. */
#define OUTPUT_FOLLOW_MAX 256U
#define DATA_MAX 16U          /* --data directories */

/* A power-loss layer (svd-powerfs) over one --data directory. */
typedef struct PowerLayer {
        pid_t pid; /* 0: none */
        int pidfd;
        int out; /* its stdout: "ready", then the cut's summary */
} PowerLayer;

DEFINE_TRIVIAL_CLEANUP_FUNC(VarlinkClient *, varlink_client_free);

typedef struct Service {
        char *name;
        pid_t pid;
        bool ready;
        bool killed;           /* by this round's fault: must come back under a new pid */
        bool restarts_on_kill; /* its Restart= brings it back after a SIGKILL */
        pid_t old_pid;
        unsigned starts; /* times it entered a ready state while recovering */
        bool expected;   /* must be ready again after this round's fault */
} Service;

typedef struct Runner {
        char *dir;
        bool dir_owned;
        char *socket;
        char *notify_path;
        char *svd_log;
        int notify_fd;
        pid_t self;
        pid_t svd_pid;
        int svd_pidfd;
        char mode[32];
        bool cgroup;
        CrashCgroup cg;               /* svd's own cgroup, for the freezer and the OOM fault */
        char error[RUNNER_ERROR_MAX]; /* why the runner itself could not go on */
        pid_t workload_pid;
        pid_t workload_pgid; /* its session and process group (setsid()) */
        int workload_pidfd;
        int workload_out;
        int workload_log;
        char workload_line[LINE_MAX_BYTES];
        size_t workload_line_len;
        bool marker_seen;
        char marker_line[TEXT_MAX]; /* the line that matched, and when the runner read it */
        uint64_t marker_usec;
        bool workload_ended; /* on its own, before workload_stop() stopped it */
        int counters_fd;     /* the read end of the workload's $SVD_CRASHTEST_COUNTERS_FD */
        char counters_line[128];
        size_t counters_line_len;
        Counters counters;   /* what the workload reported this round */
        siginfo_t workload_si; /* how it ended */
        Service *services;
        size_t n_services;
        VarlinkClient *output[OUTPUT_FOLLOW_MAX]; /* Logs with follow, one per service, this round */
        PowerLayer layers[DATA_MAX]; /* one per --data directory, with a power-loss fault */
        pid_t layer_pids[DATA_MAX];  /* the same, for the judge: never "escaped" */
        unsigned layer_starts;       /* layers started so far: each one's seed */
} Runner;

/* What the options name checked against what svd loaded from --units, before the first round:
 * --target (services under test), --at state:NAME=/log:NAME= (a unit svd has), --services (each
 * loaded). With no service to test, says why, with what svd said of every unit it could not load
 * (file, line, reason). 0, or -EINVAL said on stderr. */
int runner_check_names(Runner *r);

/* Follows the output of the first OUTPUT_FOLLOW_MAX services from now on (Logs with follow,
 * nothing older): what svd streams before it dies waits in each connection, to be saved if the
 * round fails. */
void runner_output_follow(Runner *r);
/* Writes what the followers got to DIR/round-N.NAME.before.log when keep, and closes them. */
void runner_output_done(Runner *r, unsigned round, bool keep);

/* Each service's output that svd holds now (what it printed since svd last started it: svd keeps a
 * service's lines in memory, so those before a crash of svd are gone with it), one file per
 * service: DIR/round-N.NAME.log, "TIME STREAM MESSAGE" lines. For a failed round. */
void runner_save_logs(Runner *r, unsigned round);

/* The StateDirectory= paths of the services under test, as svd reports them (where the data are),
 * each once, in a new array of new strings: 0, or -errno (said). */
int runner_state_directories(Runner *r, char ***ret, size_t *ret_n);

/* The runner holds a pidfd for every process it tracks and a connection for every service it
 * follows: more than the usual soft limit of 1024 descriptors. runner_raise_nofile() raises its soft
 * limit to the hard one; runner_child_nofile(), in a child before its exec, gives back the soft limit
 * the runner was started with, so that svd, its services, the workload and the check run as they
 * would without the runner. */
void runner_raise_nofile(void);
void runner_child_nofile(void);

/* Prints the runner's failure and keeps it in r->error; returns -EINVAL. */
_printf_(2, 3) int runner_fail(Runner *r, const char *fmt, ...);

Service *runner_find(Runner *r, const char *name);
int runner_add_service(Runner *r, const char *name); /* once per name; -E2BIG beyond SERVICES_MAX */
/* Reaps the runner's children without waiting: svd, the workload, orphans re-parented to it. */
void runner_reap(void *userdata);
void runner_done(Runner *r); /* frees its names, paths and fds; svd and the workload are stopped apart */

/* Starts svd (in its own cgroup when the runner made one), waits for its READY=1 (at most
 * --ready-timeout) and reads its mode. */
int runner_start_svd(Runner *r);
/* SIGTERM, then SIGKILL if svd has not stopped within 60 s; waits for its end. */
void runner_stop_svd(Runner *r);
/* Waits for the end of an svd that a fault has ended. */
void runner_wait_svd_exit(Runner *r);
/* A line of svd's log without its time ("[...] ", SVD_LOG_TIME) and "svd: " in front. */
const char *svd_log_message(const char *line);
/* The last line svd logged (without time and "svd: "), for a report; false when there is none. */
bool runner_svd_last_line(Runner *r, char *buf, size_t size);

/* List: each wanted service's state and pid, and whether its Restart= brings it back after a
 * SIGKILL. collect_wanted: first adds every service of the unit directory that is wanted (start, or
 * default and enabled). */
int runner_list(Runner *r, bool collect_wanted);
/* Starts each wanted service (a no-op for one that runs); each reply comes when it is ready. */
int runner_start_services(Runner *r);
/* Subscribe, the first reply read; -errno without a message. */
int runner_subscribe(Runner *r, VarlinkClient **ret);

bool state_is_ready(const char *state); /* running, or a oneshot's exited */
