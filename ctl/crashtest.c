/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svd-crashtest: crash-recovery rounds against a private svd.
 *
 * The runner starts and owns its own svd (own socket and state directory, on
 * the given unit directory) and runs seeded rounds: wait until the wanted
 * services are ready (+ a probe command), start the user's workload outside
 * svd, wait for the moment (a delay, or an event from svd's own event
 * stream, a log line of a service, a marker line of the workload), inject the
 * fault, count what of every killed tree is still alive or left a zombie,
 * restart svd, time the recovery from svd's events, run the user's check.
 *
 * This file reads the options, sets the run up and runs the rounds; the
 * phases live in crashtest-runner.c (the private svd), crashtest-workload.c
 * (the user's commands), crashtest-round.c (a round and its faults),
 * crashtest-report.c (the report), crashtest-proc.c (the process trees)
 * and crashtest-cgroup.c (svd's cgroup).
 *
 * The runner is a child subreaper: svd is its child, and a process that
 * escaped its service (setsid() and a double fork) is re-parented to the
 * runner rather than to the host's init, where it could no longer be told
 * from anyone else's. The workload runs in a session of its own, so that
 * its orphans are not taken for escaped service processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashtest-cgroup.h"
#include "crashtest-options.h"
#include "crashtest-powerloss.h"
#include "crashtest-report.h"
#include "crashtest-round.h"
#include "crashtest-runner.h"
#include "crashtest-workload.h"
#include "macros.h"
#include "service-state.h"
#include "time-util.h"

#define ROUNDS_MAX 1000000U

/* The options (crashtest-options.h). */
const char *arg_units;
const char *arg_svd;
const char *arg_dir;
bool arg_fallback;
char **arg_services;
size_t arg_n_services;
const char *arg_probe;
const char *arg_workload;
const char *arg_check;
bool arg_fault_set[_FAULT_MAX];
char **arg_targets;
size_t arg_n_targets;
AtKind arg_at = AT_RANDOM;
uint64_t arg_at_min_usec = 0, arg_at_max_usec = USEC_PER_SEC;
char *arg_at_name;
char *arg_at_value;
regex_t arg_at_regex;
uint64_t arg_seed;
unsigned arg_rounds;
unsigned arg_round_only;
char *arg_replay;
uint64_t arg_duration_usec;
bool arg_stop_on_failure;
bool arg_json;
bool arg_keep;
const char *arg_chart;
bool arg_workload_may_exit;
char **arg_keep_data;
size_t arg_n_keep_data;
char **arg_data;
size_t arg_n_data;
const char *arg_powerfs;
uint64_t arg_stop_usec = USEC_PER_SEC;
StopBy arg_stop_by = STOP_BY_AUTO;
uint64_t arg_ready_timeout_usec = 60 * USEC_PER_SEC;
uint64_t arg_death_timeout_usec = 5 * USEC_PER_SEC;
uint64_t arg_recover_timeout_usec = 60 * USEC_PER_SEC;
uint64_t arg_trigger_timeout_usec = 60 * USEC_PER_SEC;
static bool arg_seed_set;
/* The largest seed: a JSON number without loss. */
#define SEED_MAX ((1ULL << 53) - 1)

static bool ascii_isdigit(char c) {
        return c >= '0' && c <= '9';
}
static bool arg_stop_by_set, arg_stop_time_set;

_printf_(1, 2) static int fail(const char *fmt, ...) {
        va_list ap;
        fputs("svd-crashtest: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

/* The long name of option val, for messages. */
static const char *option_name(const struct option *options, int val) {
        for (const struct option *o = options; o->name; o++)
                if (o->val == val)
                        return o->name;
        return "?";
}

static int parse_msec(const char *s, uint64_t *ret) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || end == s)
                return -EINVAL;
        uint64_t mul = USEC_PER_MSEC;
        if (streq(end, "s"))
                mul = USEC_PER_SEC;
        else if (streq(end, "us"))
                mul = 1;
        else if (!streq(end, "") && !streq(end, "ms"))
                return -EINVAL;
        if (v > UINT64_MAX / mul / 2)
                return -ERANGE;
        *ret = (uint64_t)v * mul;
        return 0;
}

static int split_list(const char *s, char ***ret, size_t *ret_n) {
        char *copy = strdup(s), *save = NULL;
        if (!copy)
                return -ENOMEM;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                char **n = realloc(*ret, (*ret_n + 1) * sizeof(char *));
                if (!n)
                        return -ENOMEM;
                *ret = n;
                (*ret)[(*ret_n)++] = strdup(tok);
        }
        free(copy);
        return 0;
}

static int parse_at(const char *s) {
        const char *colon = strchr(s, ':');
        if (!colon)
                return fail("--at '%s': expected KIND:VALUE", s);
        size_t kl = (size_t)(colon - s);
        const char *v = colon + 1;
        if (kl == 6 && strneq(s, "random", 6)) {
                const char *dash = strchr(v, '-');
                if (!dash)
                        return fail("--at random:MIN-MAX, in ms");
                _cleanup_free_ char *a = strndup(v, (size_t)(dash - v));
                if (!a || parse_msec(a, &arg_at_min_usec) < 0 ||
                    parse_msec(dash + 1, &arg_at_max_usec) < 0 || arg_at_max_usec < arg_at_min_usec)
                        return fail("--at random:MIN-MAX, in ms: '%s'", v);
                arg_at = AT_RANDOM;
                return 0;
        }
        if (kl == 5 && strneq(s, "delay", 5)) {
                if (parse_msec(v, &arg_at_min_usec) < 0)
                        return fail("--at delay:MS: '%s'", v);
                arg_at = AT_DELAY;
                return 0;
        }
        if (kl == 6 && strneq(s, "marker", 6)) {
                arg_at = AT_MARKER;
                arg_at_value = strdup(v);
        } else if (kl == 7 && strneq(s, "svd-log", 7)) {
                arg_at = AT_SVD_LOG;
                arg_at_value = strdup(v);
        } else {
                const char *eq = strchr(v, '=');
                if (!eq)
                        return fail("--at '%s': expected state:NAME=STATE or log:NAME=REGEX", s);
                arg_at_name = strndup(v, (size_t)(eq - v));
                arg_at_value = strdup(eq + 1);
                if (kl == 5 && strneq(s, "state", 5))
                        arg_at = AT_STATE;
                else if (kl == 3 && strneq(s, "log", 3))
                        arg_at = AT_LOG;
                else
                        return fail("Unknown --at kind in '%s'", s);
        }
        if (!arg_at_value)
                return -ENOMEM;
        if (IN_SET(arg_at, AT_LOG, AT_MARKER, AT_SVD_LOG) &&
            regcomp(&arg_at_regex, arg_at_value, REG_EXTENDED | REG_NOSUB))
                return fail("Invalid regular expression '%s'", arg_at_value);
        return 0;
}

static void help(void) {
        printf("svd-crashtest --units DIR [OPTIONS]\n\n"
               "Crash-recovery rounds against a private svd on DIR.\n\n"
               "  -u --units DIR           Unit directory\n"
               "     --svd PATH            The svd binary (default: $SVD, else next to this program)\n"
               "     --dir DIR             Socket, svd's state and logs (default: a new temporary one)\n"
               "     --mode=fallback       Run svd in fallback mode\n"
               "     --services A,B        Services to start and expect back (default: the wanted ones)\n"
               "     --probe CMD           Must succeed before the fault (sh -c)\n"
               "     --workload CMD        Runs outside svd from ready to after the recovery\n"
               "     --workload-may-exit   A workload that ends before the fault does not fail the round\n"
               "     --check CMD           Run after recovery: exit 0 means consistent\n"
               "     --fault F[,F...]      svd-kill (default), svd-stop, svd-term, svd-oom,\n"
               "                           service-kill, service-kill-some, service-kill-all,\n"
               "                           service-stop, power-loss, power-loss-torn; each round\n"
               "                           picks one of the list\n"
               "     --data DIR[,DIR...]   What power-loss cuts: what was not made durable there is lost\n"
               "                           (default: the services' StateDirectory=)\n"
               "     --powerfs PATH        The svd-powerfs binary (default: $SVD_POWERFS, else next\n"
               "                           to this program)\n"
               "     --target A,B          Services a service fault picks from (default: all wanted)\n"
               "     --at WHEN             random:MIN-MAX (ms, default random:0-1000), delay:MS,\n"
               "                           state:NAME=STATE, log:NAME=REGEX, marker:REGEX,\n"
               "                           svd-log:REGEX\n"
               "     --stop-time MS        How long svd-stop/service-stop keep it stopped (1000)\n"
               "     --stop-by HOW         auto (default: the cgroup freezer where it can, else\n"
               "                           SIGSTOP), freeze, signal\n"
               "     --seed N              Replay the schedule of a run\n"
               "     --round N             With --seed: run round N of that schedule alone\n"
               "     --rounds N            Rounds (default 10 unless --duration)\n"
               "     --duration SEC        Start no round after this\n"
               "     --stop-on-failure     End at the first failed round\n"
               "     --ready-timeout SEC   --death-timeout MS   --recover-timeout SEC\n"
               "     --check-timeout SEC   (300; the probe: each run within --ready-timeout)\n"
               "     --trigger-timeout SEC\n"
               "     --json                The rounds and the summary as JSON on stdout\n"
               "     --keep                Keep the directory (kept anyway when a round failed)\n"
               "     --keep-data DIR,...   Copy these data directories into a failed round's\n"
               "                           round-N.data/ (after its check)\n"
               "     --chart FILE.png      Time to recover and to last death per round (gnuplot)\n");
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_SVD = 0x100,
                ARG_DIR,
                ARG_MODE,
                ARG_SERVICES,
                ARG_PROBE,
                ARG_WORKLOAD,
                ARG_CHECK,
                ARG_FAULT,
                ARG_TARGET,
                ARG_AT,
                ARG_STOP_TIME,
                ARG_STOP_BY,
                ARG_SEED,
                ARG_ROUNDS,
                ARG_ROUND,
                ARG_DURATION,
                ARG_STOP_ON_FAILURE,
                ARG_READY_TIMEOUT,
                ARG_DEATH_TIMEOUT,
                ARG_RECOVER_TIMEOUT,
                ARG_TRIGGER_TIMEOUT,
                ARG_JSON,
                ARG_KEEP,
                ARG_CHART,
                ARG_WORKLOAD_MAY_EXIT,
                ARG_CHECK_TIMEOUT,
                ARG_KEEP_DATA,
                ARG_DATA,
                ARG_POWERFS,
        };
        static const struct option options[] = {
            {"help", no_argument, NULL, 'h'},
            {"units", required_argument, NULL, 'u'},
            {"svd", required_argument, NULL, ARG_SVD},
            {"dir", required_argument, NULL, ARG_DIR},
            {"mode", required_argument, NULL, ARG_MODE},
            {"services", required_argument, NULL, ARG_SERVICES},
            {"probe", required_argument, NULL, ARG_PROBE},
            {"workload", required_argument, NULL, ARG_WORKLOAD},
            {"check", required_argument, NULL, ARG_CHECK},
            {"fault", required_argument, NULL, ARG_FAULT},
            {"target", required_argument, NULL, ARG_TARGET},
            {"at", required_argument, NULL, ARG_AT},
            {"stop-time", required_argument, NULL, ARG_STOP_TIME},
            {"stop-by", required_argument, NULL, ARG_STOP_BY},
            {"seed", required_argument, NULL, ARG_SEED},
            {"rounds", required_argument, NULL, ARG_ROUNDS},
            {"round", required_argument, NULL, ARG_ROUND},
            {"duration", required_argument, NULL, ARG_DURATION},
            {"stop-on-failure", no_argument, NULL, ARG_STOP_ON_FAILURE},
            {"ready-timeout", required_argument, NULL, ARG_READY_TIMEOUT},
            {"death-timeout", required_argument, NULL, ARG_DEATH_TIMEOUT},
            {"recover-timeout", required_argument, NULL, ARG_RECOVER_TIMEOUT},
            {"trigger-timeout", required_argument, NULL, ARG_TRIGGER_TIMEOUT},
            {"check-timeout", required_argument, NULL, ARG_CHECK_TIMEOUT},
            {"keep-data", required_argument, NULL, ARG_KEEP_DATA},
            {"data", required_argument, NULL, ARG_DATA},
            {"powerfs", required_argument, NULL, ARG_POWERFS},
            {"json", no_argument, NULL, ARG_JSON},
            {"keep", no_argument, NULL, ARG_KEEP},
            {"chart", required_argument, NULL, ARG_CHART},
            {"workload-may-exit", no_argument, NULL, ARG_WORKLOAD_MAY_EXIT},
            {},
        };
        int c, q;
        bool any_fault = false;
        while ((c = getopt_long(argc, argv, "hu:", options, NULL)) >= 0) {
                uint64_t u;
                char *end;
                switch (c) {
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case 'u':
                        arg_units = optarg;
                        break;
                case ARG_SVD:
                        arg_svd = optarg;
                        break;
                case ARG_DIR:
                        arg_dir = optarg;
                        break;
                case ARG_MODE:
                        if (!streq(optarg, "fallback") && !streq(optarg, "auto"))
                                return fail("Unknown --mode '%s' (expected 'auto' or 'fallback')", optarg);
                        arg_fallback = streq(optarg, "fallback");
                        break;
                case ARG_SERVICES:
                        if (split_list(optarg, &arg_services, &arg_n_services) < 0)
                                return -ENOMEM;
                        break;
                case ARG_PROBE:
                        arg_probe = optarg;
                        break;
                case ARG_WORKLOAD:
                        arg_workload = optarg;
                        break;
                case ARG_CHECK:
                        arg_check = optarg;
                        break;
                case ARG_FAULT: {
                        _cleanup_free_ char *copy = strdup(optarg);
                        char *save = NULL;
                        if (!copy)
                                return -ENOMEM;
                        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                                Fault f = fault_from_string(tok);
                                if (f < 0)
                                        return fail("Unknown --fault '%s'", tok);
                                arg_fault_set[f] = any_fault = true;
                        }
                        break;
                }
                case ARG_TARGET:
                        if (split_list(optarg, &arg_targets, &arg_n_targets) < 0)
                                return -ENOMEM;
                        break;
                case ARG_AT:
                        q = parse_at(optarg);
                        if (q < 0)
                                return q;
                        break;
                case ARG_STOP_TIME:
                        if (parse_msec(optarg, &arg_stop_usec) < 0)
                                return fail("Invalid --stop-time '%s'", optarg);
                        arg_stop_time_set = true;
                        break;
                case ARG_STOP_BY:
                        if (streq(optarg, "auto"))
                                arg_stop_by = STOP_BY_AUTO;
                        else if (streq(optarg, "freeze"))
                                arg_stop_by = STOP_BY_FREEZE;
                        else if (streq(optarg, "signal"))
                                arg_stop_by = STOP_BY_SIGNAL;
                        else
                                return fail("Unknown --stop-by '%s' (expected auto, freeze or signal)",
                                            optarg);
                        arg_stop_by_set = true;
                        break;
                case ARG_SEED:
                        /* strtoull() would take "-5" as 2^64 - 5. */
                        errno = 0;
                        arg_seed = strtoull(optarg, &end, 10);
                        if (!ascii_isdigit(optarg[0]) || errno || *end || arg_seed > SEED_MAX)
                                return fail("Invalid --seed '%s' (0..%llu)", optarg, (unsigned long long)SEED_MAX);
                        arg_seed_set = true;
                        break;
                case ARG_ROUND:
                        errno = 0;
                        u = strtoull(optarg, &end, 10);
                        if (!ascii_isdigit(optarg[0]) || errno || *end || u == 0 || u > ROUNDS_MAX)
                                return fail("Invalid --round '%s' (1..%u)", optarg, ROUNDS_MAX);
                        arg_round_only = (unsigned)u;
                        break;
                case ARG_ROUNDS:
                        errno = 0;
                        u = strtoull(optarg, &end, 10);
                        if (!ascii_isdigit(optarg[0]) || errno || *end || u == 0 || u > ROUNDS_MAX)
                                return fail("Invalid --rounds '%s' (1..%u)", optarg, ROUNDS_MAX);
                        arg_rounds = (unsigned)u;
                        break;
                case ARG_DURATION:
                case ARG_READY_TIMEOUT:
                case ARG_RECOVER_TIMEOUT:
                case ARG_TRIGGER_TIMEOUT:
                case ARG_CHECK_TIMEOUT:
                        errno = 0;
                        u = strtoull(optarg, &end, 10);
                        if (!ascii_isdigit(optarg[0]) || errno || *end || u == 0 || u > 365ULL * 24 * 3600)
                                return fail("Invalid --%s '%s' (seconds, 1..%llu)", option_name(options, c), optarg,
                                            365ULL * 24 * 3600);
                        u *= USEC_PER_SEC;
                        if (c == ARG_DURATION)
                                arg_duration_usec = u;
                        else if (c == ARG_READY_TIMEOUT)
                                arg_ready_timeout_usec = u;
                        else if (c == ARG_RECOVER_TIMEOUT)
                                arg_recover_timeout_usec = u;
                        else if (c == ARG_CHECK_TIMEOUT)
                                arg_check_timeout_usec = u;
                        else
                                arg_trigger_timeout_usec = u;
                        break;
                case ARG_DEATH_TIMEOUT:
                        if (parse_msec(optarg, &arg_death_timeout_usec) < 0 || arg_death_timeout_usec == 0)
                                return fail("Invalid --death-timeout '%s'", optarg);
                        break;
                case ARG_STOP_ON_FAILURE:
                        arg_stop_on_failure = true;
                        break;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_KEEP:
                        arg_keep = true;
                        break;
                case ARG_CHART:
                        arg_chart = optarg;
                        break;
                case ARG_KEEP_DATA:
                        if (split_list(optarg, &arg_keep_data, &arg_n_keep_data) < 0)
                                return -ENOMEM;
                        for (size_t k = 0; k < arg_n_keep_data; k++)
                                if (arg_keep_data[k][0] != '/')
                                        return fail("--keep-data '%s': an absolute path", arg_keep_data[k]);
                        break;
                case ARG_WORKLOAD_MAY_EXIT:
                        arg_workload_may_exit = true;
                        break;
                case ARG_DATA:
                        if (split_list(optarg, &arg_data, &arg_n_data) < 0)
                                return -ENOMEM;
                        if (arg_n_data > DATA_MAX)
                                return fail("--data: at most %u directories", DATA_MAX);
                        break;
                case ARG_POWERFS:
                        arg_powerfs = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc)
                return fail("Unexpected argument '%s'", argv[optind]);
        if (!arg_units)
                return fail("--units DIR is required");
        if (!any_fault)
                arg_fault_set[FAULT_SVD_KILL] = true;
        if (arg_at == AT_MARKER && !arg_workload)
                return fail("--at marker: needs --workload");
        bool power = arg_fault_set[FAULT_POWER_LOSS] || arg_fault_set[FAULT_POWER_LOSS_TORN];
        if (!power && arg_n_data > 0)
                return fail("--data applies to the faults power-loss and power-loss-torn, and --fault names neither");
        for (size_t k = 0; k < arg_n_data; k++) {
                struct stat dst;
                if (arg_data[k][0] != '/')
                        return fail("--data '%s': an absolute path", arg_data[k]);
                if (stat(arg_data[k], &dst) < 0)
                        return fail("--data '%s': %m", arg_data[k]);
                if (!S_ISDIR(dst.st_mode))
                        return fail("--data '%s': not a directory", arg_data[k]);
                for (size_t j = 0; j < k; j++)
                        if (streq(arg_data[j], arg_data[k]))
                                return fail("--data '%s': named twice", arg_data[k]);
        }
        bool stops = arg_fault_set[FAULT_SVD_STOP] || arg_fault_set[FAULT_SERVICE_STOP];
        if (arg_stop_by_set && !stops)
                return fail("--stop-by applies to the faults svd-stop and service-stop, and --fault names neither");
        if (arg_stop_time_set && !stops)
                return fail("--stop-time applies to the faults svd-stop and service-stop, and --fault names neither");
        if (arg_at == AT_STATE && service_state_from_string(arg_at_value) < 0)
                return fail("--at state:%s=%s: '%s' is no state of svd's (inactive, starting, running, ...)",
                            arg_at_name, arg_at_value, arg_at_value);
        if (arg_n_targets > 0 && !arg_fault_set[FAULT_SERVICE_KILL] && !arg_fault_set[FAULT_SERVICE_KILL_SOME] &&
            !arg_fault_set[FAULT_SERVICE_KILL_ALL] && !arg_fault_set[FAULT_SERVICE_STOP])
                return fail("--target applies to the service faults, and --fault names none");
        struct stat st;
        if (stat(arg_units, &st) < 0)
                return fail("--units '%s': %m", arg_units);
        if (!S_ISDIR(st.st_mode))
                return fail("--units '%s': not a directory", arg_units);
        if (arg_chart) {
                /* Made now, so that a path that cannot be written fails the start, not the end. */
                int fd = open(arg_chart, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
                if (fd < 0)
                        return fail("--chart '%s': %m", arg_chart);
                close(fd);
        }
        if (arg_round_only > 0) {
                if (!arg_seed_set)
                        return fail("--round N replays round N of a run: it needs that run's --seed");
                if (arg_rounds > 0 || arg_duration_usec > 0)
                        return fail("--round N runs round N alone: not with --rounds or --duration");
        }
        if (arg_rounds == 0 && arg_duration_usec == 0)
                arg_rounds = 10;
        return 0;
}

/* Appends s to buf (*len of *size used), quoted for sh where it must be. */
static int append_quoted(char **buf, size_t *len, size_t *size, const char *s) {
        bool plain = !isempty(s);
        for (const char *c = s; *c; c++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,@%+-", *c))
                        plain = false;
        size_t need = *len + 4 * strlen(s) + 4;
        if (need > *size) {
                char *n = realloc(*buf, need * 2);
                if (!n)
                        return -ENOMEM;
                *buf = n;
                *size = need * 2;
        }
        char *o = *buf + *len;
        if (*len > 0)
                *o++ = ' ';
        if (plain)
                o = stpcpy(o, s);
        else {
                *o++ = '\'';
                for (const char *c = s; *c; c++)
                        if (*c == '\'')
                                o = stpcpy(o, "'\\''");
                        else
                                *o++ = *c;
                *o++ = '\'';
        }
        *o = 0;
        *len = (size_t)(o - *buf);
        return 0;
}

/* The command line that replays one round of this run: this one without the options that choose
 * the rounds or draw the chart; the round's line adds --seed S --round N. */
static char *replay_prefix(int argc, char **argv) {
        static const char *const dropped[] = {"--seed", "--rounds", "--round", "--duration", "--chart"};
        char *buf = NULL;
        size_t len = 0, size = 0;
        for (int i = 0; i < argc; i++) {
                bool drop = false, with_value = false;
                for (size_t k = 0; k < ELEMENTSOF(dropped); k++) {
                        size_t l = strlen(dropped[k]);
                        if (strneq(argv[i], dropped[k], l) && (argv[i][l] == 0 || argv[i][l] == '=')) {
                                drop = true;
                                with_value = argv[i][l] == 0;
                        }
                }
                if (drop) {
                        if (with_value)
                                i++;
                        continue;
                }
                if (append_quoted(&buf, &len, &size, argv[i]) < 0) {
                        free(buf);
                        return NULL;
                }
        }
        return buf;
}

/* A program of svd's: $env, else the first of rel (relative to this program's directory) that
 * exists, else fallback. */
static char *find_program(const char *env, const char *const *rel, size_t n_rel, const char *fallback) {
        const char *e = getenv(env);
        if (e)
                return strdup(e);
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n > 0) {
                self[n] = 0;
                char *slash = strrchr(self, '/');
                if (slash) {
                        *slash = 0;
                        for (size_t i = 0; i < n_rel; i++) {
                                char *p;
                                if (asprintf(&p, "%s%s", self, rel[i]) < 0)
                                        return NULL;
                                if (access(p, X_OK) == 0)
                                        return p;
                                free(p);
                        }
                }
        }
        return strdup(fallback);
}

/* svd next to this program: build/ctl/svd-crashtest → build/daemon/svd,
 * /usr/bin/svd-crashtest → /usr/sbin/svd. */
static char *find_svd(void) {
        static const char *const rel[] = {"/../daemon/svd", "/svd", "/../sbin/svd"};
        return find_program("SVD", rel, ELEMENTSOF(rel), "/usr/sbin/svd");
}

static char *find_powerfs(void) {
        static const char *const rel[] = {"/svd-powerfs"};
        return find_program("SVD_POWERFS", rel, ELEMENTSOF(rel), "/usr/bin/svd-powerfs");
}

static void strv_list_free(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static void options_done(void) {
        strv_list_free(arg_services, arg_n_services);
        strv_list_free(arg_targets, arg_n_targets);
        strv_list_free(arg_keep_data, arg_n_keep_data);
        strv_list_free(arg_data, arg_n_data);
        free(arg_replay);
        free(arg_at_name);
        free(arg_at_value);
        if (IN_SET(arg_at, AT_LOG, AT_MARKER, AT_SVD_LOG))
                regfree(&arg_at_regex);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f) {
        (void)remove(path);
        return 0;
}

volatile sig_atomic_t runner_interrupted;
uint64_t arg_check_timeout_usec = 300 * USEC_PER_SEC;

static void on_signal(int sig) {
        runner_interrupted = sig;
}

/* The run's directory (--dir, or a new one), its paths and the environment that names them: 0, or
 * -errno (said). */
static int setup_directory(Runner *r) {
        /* The directory holds svd's notify socket: a service that runs as another user (User=) must
         * reach it, so others may pass through (0711) but not list it; what the runner writes there
         * is its own (0600). A directory given that exists already keeps its mode. */
        bool made = false;
        if (arg_dir) {
                if (mkdir(arg_dir, 0700) < 0) {
                        if (errno != EEXIST)
                                return fail("mkdir '%s': %m", arg_dir);
                } else
                        made = true;
                r->dir = realpath(arg_dir, NULL);
        } else {
                char tmpl[PATH_MAX];
                snprintf(tmpl, sizeof(tmpl), "%s/svd-crashtest.XXXXXX", getenv("TMPDIR") ?: "/tmp");
                if (mkdtemp(tmpl))
                        r->dir = strdup(tmpl);
                r->dir_owned = made = true;
        }
        if (!r->dir)
                return fail("Failed to create the directory: %m");
        if (made && chmod(r->dir, 0711) < 0)
                return fail("chmod '%s': %m", r->dir);
        if (asprintf(&r->socket, "%s/svd.sock", r->dir) < 0 || asprintf(&r->notify_path, "%s/notify", r->dir) < 0 ||
            asprintf(&r->svd_log, "%s/svd.log", r->dir) < 0)
                return -ENOMEM;

        char wl[PATH_MAX];
        snprintf(wl, sizeof(wl), "%s/workload.log", r->dir);
        if (arg_workload)
                r->workload_log = open(wl, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

        /* Workload and check talk to this svd: svctl and the others find it here. */
        (void)setenv("SVD_SOCKET", r->socket, 1);
        (void)setenv("SVD_CRASHTEST_DIR", r->dir, 1);
        return 0;
}

/* The first start: the power-loss layers, svd, the wanted services (or those asked for), checked
 * against the options; without --data for a power-loss fault, the services' StateDirectory= covered
 * by layers before svd starts again. 0, or -errno (said). */
static int first_start(Runner *r, bool power) {
        int q;

        /* The power-loss layers cover the data before anything uses it. */
        q = arg_n_data > 0 ? powerloss_start(r) : 0;
        if (q < 0)
                return q;
        /* First start: the wanted services, or those asked for. */
        q = runner_start_svd(r);
        if (q < 0)
                return q;
        for (size_t i = 0; i < arg_n_services && q >= 0; i++)
                q = runner_add_service(r, arg_services[i]);
        if (q >= 0 && arg_n_services == 0)
                q = runner_list(r, /* collect_wanted= */ true);
        if (q >= 0)
                q = runner_check_names(r);
        if (q >= 0)
                q = runner_start_services(r);
        if (q >= 0 && power && arg_n_data == 0) {
                /* No --data: the services' StateDirectory=, which svd made and reports. The layers
                 * must cover them before anything opens them: svd stops (its services with it), what
                 * they wrote is synced, the layers go over the directories, and svd starts again. */
                q = runner_state_directories(r, &arg_data, &arg_n_data);
                if (q >= 0 && arg_n_data == 0)
                        q = runner_fail(r, "power-loss needs --data DIR[,DIR...] (the directories whose unsynced "
                                            "writes it loses): no service under test has StateDirectory=");
                if (q >= 0) {
                        for (size_t k = 0; k < arg_n_data; k++)
                                fprintf(stderr, "svd-crashtest: power-loss cuts %s (StateDirectory=)\n", arg_data[k]);
                        runner_stop_svd(r);
                        sync();
                        q = powerloss_start(r);
                }
                if (q >= 0)
                        q = runner_start_svd(r);
                if (q >= 0)
                        q = runner_start_services(r);
        }
        return q;
}

int main(int argc, char *argv[]) {
        Runner r = {.notify_fd = -EBADF,
                    .cg = CRASH_CGROUP_NULL,
                    .svd_pidfd = -EBADF,
                    .workload_pidfd = -EBADF,
                    .workload_out = -EBADF,
                    .workload_log = -EBADF,
                    .counters_fd = -EBADF};
        int q;

        if (parse_argv(argc, argv) < 0)
                return 2;
        arg_replay = replay_prefix(argc, argv);
        if (!arg_replay)
                return fail("Out of memory"), 2;
        _cleanup_free_ char *svd = arg_svd ? strdup(arg_svd) : find_svd();
        if (!svd)
                return 2;
        arg_svd = svd;
        _cleanup_free_ char *powerfs = NULL;
        bool power = arg_fault_set[FAULT_POWER_LOSS] || arg_fault_set[FAULT_POWER_LOSS_TORN];
        if (power) {
                powerfs = arg_powerfs ? strdup(arg_powerfs) : find_powerfs();
                if (!powerfs)
                        return 2;
                if (access(powerfs, X_OK) < 0)
                        return fail("power-loss needs svd-powerfs (built with libfuse3): %s: %m", powerfs), 2;
                arg_powerfs = powerfs;
        }
        if (!arg_seed_set && getrandom(&arg_seed, sizeof(arg_seed), 0) != sizeof(arg_seed))
                arg_seed = now_usec(CLOCK_REALTIME);
        arg_seed &= SEED_MAX;

        runner_raise_nofile();
        /* Orphans of svd's services come to us, not to the host's init. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                return fail("PR_SET_CHILD_SUBREAPER: %m"), 2;
        r.self = getpid();

        struct sigaction sa = {.sa_handler = on_signal};
        (void)sigaction(SIGINT, &sa, NULL);
        (void)sigaction(SIGTERM, &sa, NULL);
        (void)signal(SIGPIPE, SIG_IGN);

        /* svd in a cgroup of its own: the OOM fault needs it, with the
         * memory controller; the stop faults freeze it where it can be had. */
        bool want_memory = arg_fault_set[FAULT_SVD_OOM];
        if (want_memory || (arg_fault_set[FAULT_SVD_STOP] && arg_stop_by != STOP_BY_SIGNAL)) {
                char why[256] = "";
                q = crash_cgroup_setup(&r.cg, want_memory, why, sizeof(why));
                if (q < 0) {
                        crash_cgroup_done(&r.cg);
                        if (want_memory)
                                q = fail(
                                    "svd-oom needs a cgroup of svd's own with the memory controller: %s",
                                    why);
                        else if (arg_stop_by == STOP_BY_FREEZE)
                                q = fail("--stop-by freeze needs a cgroup of svd's own: %s", why);
                        else {
                                fprintf(stderr, "svd-crashtest: svd-stop stops svd with SIGSTOP: %s\n", why);
                                q = 0;
                        }
                        if (q < 0) {
                                runner_done(&r);
                                options_done();
                                return 2;
                        }
                } else
                        fprintf(stderr, "svd-crashtest: svd runs in the cgroup %s/supervisor\n", r.cg.path);
        }

        if (setup_directory(&r) < 0)
                return 2;

        fprintf(stderr, "svd-crashtest: seed %llu (replay with --seed %llu), directory %s\n",
                (unsigned long long)arg_seed, (unsigned long long)arg_seed, r.dir);

        q = first_start(&r, power);
        if (q < 0) {
                runner_stop_svd(&r);
                powerloss_stop(&r);
                crash_cgroup_done(&r.cg);
                /* What svd logged is what explains a start that failed: the directory stays. A
                 * directory given by --dir is the user's, and never removed anyway. */
                if (r.dir_owned)
                        fprintf(stderr, "svd-crashtest: kept %s (svd's log: %s)\n", r.dir, r.svd_log);
                else
                        fprintf(stderr, "svd-crashtest: svd's log: %s\n", r.svd_log);
                runner_done(&r);
                options_done();
                return 2;
        }

        Report report = {.rounds = json_array()};
        uint64_t begin = now_usec(CLOCK_MONOTONIC);
        bool tty = isatty(STDERR_FILENO);
        FILE *lines = arg_json ? stderr : stdout;

        for (unsigned i = arg_round_only > 0 ? arg_round_only : 1; !runner_interrupted; i++) {
                if (arg_round_only > 0 && i > arg_round_only)
                        break;
                if (arg_round_only == 0 && arg_rounds > 0 && i > arg_rounds)
                        break;
                if (arg_duration_usec > 0 && now_usec(CLOCK_MONOTONIC) - begin >= arg_duration_usec)
                        break;
                Round rd;
                r.error[0] = 0;
                q = round_run(&r, i, &rd);
                if (q < 0) {
                        /* The runner itself could not go on: that fails the run. */
                        round_fail(&rd, "runner error: %s", isempty(r.error) ? strerror(-q) : r.error);
                }
                if (report_add(&report, &rd) < 0)
                        break;
                if (tty)
                        fputs("\r\033[K", stderr);
                round_print(&rd, lines);
                if (tty) {
                        fprintf(stderr, "[round %u", i);
                        if (arg_rounds)
                                fprintf(stderr, " of %u", arg_rounds);
                        fprintf(stderr, "] failures %u, last recovery %.1f ms", report.failures,
                                rd.recover_usec >= 0 ? (double)rd.recover_usec / 1000.0 : -1.0);
                        fflush(stderr);
                }
                if (q < 0 || (rd.failed && arg_stop_on_failure))
                        break;
        }
        if (tty)
                fputs("\r\033[K", stderr);

        unsigned failures = report.failures;
        report_finish(&report, lines, r.dir, r.mode, now_usec(CLOCK_MONOTONIC) - begin);

        workload_stop(&r);
        runner_stop_svd(&r);
        powerloss_stop(&r);
        runner_reap(&r);
        crash_cgroup_done(&r.cg);
        if (r.dir_owned && !arg_keep && failures == 0 && !runner_interrupted) {
                /* Our own fresh directory: svd's socket, state, logs. */
                (void)nftw(r.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        } else if (r.dir_owned)
                fprintf(stderr, "svd-crashtest: kept %s\n", r.dir);
        runner_done(&r);
        options_done();
        if (runner_interrupted) {
                fprintf(stderr, "svd-crashtest: interrupted by SIG%s\n", strna(sigabbrev_np(runner_interrupted)));
                return 128 + runner_interrupted;
        }
        return failures > 0 ? 1 : 0;
}
