/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of a round and the report of the run: a line per round, the summary, the chart, the
 * JSON. */
#include "crashtest-report.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crashtest-options.h"

/* ---- a round ---- */

void text_append(char *buf, size_t size, const char *s) {
        size_t l = strlen(buf);
        if (l + 2 >= size)
                return;
        snprintf(buf + l, size - l, "%s%s", l > 0 ? "," : "", s);
}

_printf_(2, 3) void round_fail(Round *rd, const char *fmt, ...) {
        va_list ap;
        char s[TEXT_MAX];
        va_start(ap, fmt);
        vsnprintf(s, sizeof(s), fmt, ap);
        va_end(ap);
        rd->failed = true;
        if (isempty(rd->reason))
                snprintf(rd->reason, sizeof(rd->reason), "%s", s);
        else {
                size_t l = strlen(rd->reason);
                snprintf(rd->reason + l, sizeof(rd->reason) - l, "; %s", s);
        }
}

bool counters_set_line(Counters *c, const char *line) {
        const char *eq = strchr(line, '=');
        size_t kl = eq ? (size_t)(eq - line) : 0;
        if (kl == 0 || kl >= COUNTER_NAME_MAX)
                return false;
        for (size_t i = 0; i < kl; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", line[i]))
                        return false;
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (errno || end == eq + 1 || *end)
                return false;
        size_t i = 0;
        while (i < c->n && !(strlen(c->name[i]) == kl && strneq(c->name[i], line, kl)))
                i++;
        if (i == c->n) {
                if (c->n == COUNTERS_MAX)
                        return false;
                memcpy(c->name[i], line, kl);
                c->name[i][kl] = 0;
                c->n++;
        }
        c->value[i] = v;
        return true;
}

/* "acked:10,failed:0": the counters as the round line shows them. */
static void counters_text(const Counters *c, char *buf, size_t size) {
        size_t l = 0;
        buf[0] = 0;
        for (size_t i = 0; i < c->n && l < size; i++) {
                int n = snprintf(buf + l, size - l, "%s%s:%lld", i > 0 ? "," : "", c->name[i], (long long)c->value[i]);
                if (n < 0)
                        break;
                l += (size_t)n;
        }
}

static json_t *counters_json(const Counters *c) {
        json_t *o = json_object();
        for (size_t i = 0; o && i < c->n; i++)
                (void)json_object_set_new(o, c->name[i], json_integer((json_int_t)c->value[i]));
        return o;
}

void round_print(const Round *rd, FILE *f) {
        char death[32], rec[32], check[32];
        if (rd->last_death_usec >= 0)
                snprintf(death, sizeof(death), "%.1fms", (double)rd->last_death_usec / 1000.0);
        else
                snprintf(death, sizeof(death), "-");
        if (rd->recover_usec >= 0)
                snprintf(rec, sizeof(rec), "%.1fms", (double)rd->recover_usec / 1000.0);
        else
                snprintf(rec, sizeof(rec), "-");
        if (rd->check_rc < 0)
                snprintf(check, sizeof(check), "-");
        else if (rd->check_rc == 0)
                snprintf(check, sizeof(check), "ok");
        else
                snprintf(check, sizeof(check), "FAIL(%d)", rd->check_rc);
        fprintf(f,
                "round %u %s fault=%s targets=%s at=%s mode=%s via=%s tracked=%zu survivors=%zu zombies=%zu "
                "last-death=%s recover=%s check=%s",
                rd->number, rd->failed ? "FAIL" : "ok", fault_to_string(rd->fault),
                isempty(rd->targets) ? "-" : rd->targets, rd->moment, rd->mode,
                isempty(rd->via) ? "-" : rd->via, rd->tracked, rd->survivors, rd->zombies, death, rec,
                check);
        if (rd->trigger_lag_usec >= 0)
                fprintf(f, " trigger-lag=%.2fms", (double)rd->trigger_lag_usec / 1000.0);
        if (!isempty(rd->workload))
                fprintf(f, " workload=%s", rd->workload);
        if (rd->counters.n > 0) {
                char c[TEXT_MAX];
                counters_text(&rd->counters, c, sizeof(c));
                fprintf(f, " counters=%s", c);
        }
        if (rd->cut) {
                fprintf(f, " dropped=%" PRIu64 "B/%zu-files/%zu-names", rd->dropped_bytes, rd->dropped_files,
                        rd->dropped_names);
                if (rd->fault == FAULT_POWER_LOSS_TORN)
                        fprintf(f, " torn=%zu", rd->torn_files);
                if (!isempty(rd->dropped_list))
                        fprintf(f, " dropped-files=%s", rd->dropped_list);
        }
        if (rd->failed)
                fprintf(f, " reason=\"%s\" replay: %s --seed %llu --round %u", rd->reason, strna(arg_replay),
                        (unsigned long long)arg_seed, rd->number);
        fputc('\n', f);
        if (rd->survivors > 0 || rd->zombies > 0) {
                /* The diagnosis: what each one left is, and what svd was doing when the fault came. */
                if (!isempty(rd->svd_doing))
                        fprintf(f, "  svd was: %s\n", rd->svd_doing);
                fputs(rd->survivor_details, f);
        }
        fflush(f);
}

static json_t *round_json(const Round *rd) {
        json_t *o = json_pack("{s:i,s:b,s:s,s:s,s:s,s:s,s:b,s:i,s:i,s:i,s:s,s:s}", "round", (int)rd->number,
                              "ok", !rd->failed, "fault", fault_to_string(rd->fault), "targets", rd->targets,
                              "at", rd->moment, "mode", rd->mode, "fired", rd->fired, "tracked",
                              (int)rd->tracked, "survivors", (int)rd->survivors, "zombies", (int)rd->zombies,
                              "survivorNames", rd->survivor_names, "missing", rd->missing);
        if (!o)
                return NULL;
        (void)json_object_set_new(o, "faultUsec", json_integer((json_int_t)rd->fault_realtime_usec));
        (void)json_object_set_new(o, "via", json_string(rd->via));
        if (!isempty(rd->workload))
                (void)json_object_set_new(o, "workload", json_string(rd->workload));
        if (rd->counters.n > 0)
                (void)json_object_set_new(o, "counters", counters_json(&rd->counters));
        if (rd->trigger_lag_usec >= 0) {
                (void)json_object_set_new(o, "trigger", json_string(rd->trigger));
                (void)json_object_set_new(o, "triggerUsec", json_integer((json_int_t)rd->trigger_usec));
                (void)json_object_set_new(o, "triggerLagUsec", json_integer(rd->trigger_lag_usec));
        }
        char *replay = NULL;
        if (asprintf(&replay, "%s --seed %llu --round %u", strna(arg_replay), (unsigned long long)arg_seed,
                     rd->number) >= 0) {
                (void)json_object_set_new(o, "replay", json_string(replay));
                free(replay);
        }
        if (!isempty(rd->svd_doing))
                (void)json_object_set_new(o, "svdDoing", json_string(rd->svd_doing));
        if (!isempty(rd->survivor_details))
                (void)json_object_set_new(o, "survivorDetails", json_string(rd->survivor_details));
        if (rd->cut) {
                (void)json_object_set_new(o, "droppedBytes", json_integer((json_int_t)rd->dropped_bytes));
                (void)json_object_set_new(o, "droppedFiles", json_integer((json_int_t)rd->dropped_files));
                (void)json_object_set_new(o, "droppedNames", json_integer((json_int_t)rd->dropped_names));
                (void)json_object_set_new(o, "tornFiles", json_integer((json_int_t)rd->torn_files));
                (void)json_object_set_new(o, "droppedList", json_string(rd->dropped_list));
        }
        if (rd->fault == FAULT_SVD_OOM) {
                (void)json_object_set_new(o, "oomKills", json_integer((json_int_t)rd->oom_kills));
                (void)json_object_set_new(o, "oomMemoryCurrent", json_integer((json_int_t)rd->oom_usage));
        }
        (void)json_object_set_new(
            o, "lastDeathUsec", rd->last_death_usec >= 0 ? json_integer(rd->last_death_usec) : json_null());
        (void)json_object_set_new(o, "recoverUsec",
                                  rd->recover_usec >= 0 ? json_integer(rd->recover_usec) : json_null());
        (void)json_object_set_new(o, "check", rd->check_rc >= 0 ? json_integer(rd->check_rc) : json_null());
        if (rd->check_rc > 0)
                (void)json_object_set_new(o, "checkLog", json_string(rd->check_log));
        if (rd->failed)
                (void)json_object_set_new(o, "reason", json_string(rd->reason));
        return o;
}

/* ---- the run ---- */

int report_add(Report *rp, const Round *rd) {
        rp->done++;
        for (size_t i = 0; i < rd->counters.n; i++) {
                /* Summed per key: the line's form is the parser's own. */
                char line[COUNTER_NAME_MAX + 32];
                size_t k = 0;
                while (k < rp->totals.n && !streq(rp->totals.name[k], rd->counters.name[i]))
                        k++;
                int64_t sum = (k < rp->totals.n ? rp->totals.value[k] : 0) + rd->counters.value[i];
                snprintf(line, sizeof(line), "%s=%lld", rd->counters.name[i], (long long)sum);
                (void)counters_set_line(&rp->totals, line);
        }
        if (rd->failed)
                rp->failures++;
        if (rp->done > rp->allocated) {
                rp->allocated = rp->allocated ? rp->allocated * 2 : 64;
                int64_t *a = realloc(rp->deaths, rp->allocated * sizeof(*a));
                if (a)
                        rp->deaths = a;
                int64_t *b = realloc(rp->recovers, rp->allocated * sizeof(*b));
                if (b)
                        rp->recovers = b;
                int64_t *c = realloc(rp->lags, rp->allocated * sizeof(*c));
                if (c)
                        rp->lags = c;
                if (!a || !b || !c)
                        return -ENOMEM;
        }
        if (rd->trigger_lag_usec >= 0)
                rp->lags[rp->n_lags++] = rd->trigger_lag_usec;
        if (rd->last_death_usec >= 0)
                rp->deaths[rp->n_deaths++] = rd->last_death_usec;
        if (rd->recover_usec >= 0)
                rp->recovers[rp->n_recovers++] = rd->recover_usec;
        (void)json_array_append_new(rp->rounds, round_json(rd));
        return 0;
}

static double percentile(int64_t *v, size_t n, double p) {
        if (n == 0)
                return 0;
        /* nearest rank */
        size_t k = (size_t)(p * (double)n + 0.999999);
        if (k < 1)
                k = 1;
        if (k > n)
                k = n;
        return (double)v[k - 1];
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
        return x < y ? -1 : x > y;
}

/* The chart: one point per round, from DIR/rounds.dat, drawn by gnuplot
 * (a script on its stdin). Returns gnuplot's exit status, or -errno. */
static int chart_write(const char *dir, const char *mode, json_t *rounds) {
        char dat[PATH_MAX];
        snprintf(dat, sizeof(dat), "%s/rounds.dat", dir);
        FILE *f = fopen(dat, "we");
        if (!f)
                return -errno;
        fprintf(f, "# round recover_ms last_death_ms failed\n");
        size_t i;
        json_t *o;
        json_array_foreach(rounds, i, o) {
                json_t *rec = json_object_get(o, "recoverUsec"),
                       *death = json_object_get(o, "lastDeathUsec");
                fprintf(f, "%d %d ", (int)json_integer_value(json_object_get(o, "round")),
                        json_is_false(json_object_get(o, "ok")));
                if (json_is_integer(rec))
                        fprintf(f, "%.3f ", (double)json_integer_value(rec) / 1000.0);
                else
                        fprintf(f, "NaN ");
                if (json_is_integer(death))
                        fprintf(f, "%.3f\n", (double)json_integer_value(death) / 1000.0);
                else
                        fprintf(f, "NaN\n");
        }
        if (fclose(f) != 0)
                return -errno;
        /* Whole round numbers on the axis, about twenty of them at most. */
        size_t n = json_array_size(rounds), tics = n > 20 ? (n + 19) / 20 : 1;
        if (n == 0)
                return 0;

        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                close(p[0]);
                close(p[1]);
                return -errno;
        }
        if (pid == 0) {
                /* gnuplot writes to its stdout what it cannot write to the output file: never into
                 * the report. */
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                (void)dup2(p[0], 0);
                if (null >= 0)
                        (void)dup2(null, 1);
                execlp("gnuplot", "gnuplot", (char *)NULL);
                dprintf(2, "svd-crashtest: exec gnuplot: %m\n");
                _exit(127);
        }
        close(p[0]);
        FILE *g = fdopen(p[1], "w");
        if (!g) {
                close(p[1]);
        } else {
                fprintf(g,
                        "set terminal pngcairo size 1000,420\n"
                        "set output '%s'\n"
                        "set title 'svd-crashtest: seed %llu, mode %s'\n"
                        "set xlabel 'round'\nset ylabel 'ms'\nset grid\nset key top left\n"
                        "set format x '%%.0f'\nset xtics %zu\nset xrange [0.5:%zu.5]\n"
                        "plot '%s' using 1:3 with linespoints title 'time to recover', "
                        "'%s' using 1:4 with linespoints title 'time to last death', "
                        "'%s' using 1:($2 > 0 ? ($3 == $3 ? $3 : 0) : NaN) with points pt 7 ps 1.5 "
                        "lc rgb 'red' title 'failed round'\n",
                        arg_chart, (unsigned long long)arg_seed, mode, tics, n, dat, dat, dat);
                fclose(g);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        /* gnuplot says no more than a warning when it cannot write the file. */
        struct stat st;
        if (stat(arg_chart, &st) < 0)
                return -errno;
        return st.st_size > 0 ? 0 : -ENODATA;
}

int report_finish(Report *rp, FILE *lines, const char *dir, const char *mode, uint64_t elapsed_usec) {
        int ret = 0;
        unsigned done = rp->done, failures = rp->failures;

        qsort(rp->deaths, rp->n_deaths, sizeof(int64_t), cmp_i64);
        qsort(rp->recovers, rp->n_recovers, sizeof(int64_t), cmp_i64);
        qsort(rp->lags, rp->n_lags, sizeof(int64_t), cmp_i64);
        double d50 = percentile(rp->deaths, rp->n_deaths, 0.5) / 1000.0,
               d95 = percentile(rp->deaths, rp->n_deaths, 0.95) / 1000.0;
        double r50 = percentile(rp->recovers, rp->n_recovers, 0.5) / 1000.0,
               r95 = percentile(rp->recovers, rp->n_recovers, 0.95) / 1000.0;
        double minutes = (double)elapsed_usec / 60e6;
        char sd50[32] = "-", sd95[32] = "-", sr50[32] = "-", sr95[32] = "-";
        if (rp->n_deaths > 0) {
                snprintf(sd50, sizeof(sd50), "%.1f ms", d50);
                snprintf(sd95, sizeof(sd95), "%.1f ms", d95);
        }
        if (rp->n_recovers > 0) {
                snprintf(sr50, sizeof(sr50), "%.1f ms", r50);
                snprintf(sr95, sizeof(sr95), "%.1f ms", r95);
        }
        fprintf(lines,
                "summary: %u rounds, %u failed, seed %llu, mode %s; last death median %s p95 %s; "
                "recover median %s p95 %s; %.1f rounds/min\n",
                done, failures, (unsigned long long)arg_seed, mode, sd50, sd95, sr50, sr95,
                minutes > 0 ? done / minutes : 0.0);
        double l50 = percentile(rp->lags, rp->n_lags, 0.5) / 1000.0,
               l95 = percentile(rp->lags, rp->n_lags, 0.95) / 1000.0;
        if (rp->n_lags > 0)
                fprintf(lines, "trigger: from the event to the fault median %.2f ms p95 %.2f ms over %zu rounds\n", l50,
                        l95, rp->n_lags);
        if (rp->totals.n > 0) {
                char c[TEXT_MAX];
                counters_text(&rp->totals, c, sizeof(c));
                fprintf(lines, "counters over all rounds: %s\n", c);
        }
        if (arg_chart) {
                int c = chart_write(dir, mode, rp->rounds);
                if (c < 0) {
                        fprintf(stderr, "svd-crashtest: Failed to draw '%s': %s\n", arg_chart, strerror(-c));
                        ret = -EIO;
                } else if (c > 0) {
                        fprintf(stderr, "svd-crashtest: Failed to draw '%s': gnuplot exited with %d\n", arg_chart,
                                c);
                        ret = -EIO;
                } else
                        fprintf(stderr, "svd-crashtest: chart in %s\n", arg_chart);
        }
        if (arg_json) {
                json_t *o = json_pack("{s:I,s:o,s:{s:i,s:i,s:s,s:f,s:f,s:f,s:f,s:f}}", "seed",
                                      (json_int_t)arg_seed, "rounds", rp->rounds, "summary", "rounds",
                                      (int)done, "failed", (int)failures, "mode", mode, "lastDeathMedianMs",
                                      d50, "lastDeathP95Ms", d95, "recoverMedianMs", r50, "recoverP95Ms",
                                      r95, "roundsPerMinute", minutes > 0 ? done / minutes : 0.0);
                if (o)
                        (void)json_object_set_new(o, "directory", json_string(dir));
                if (o && rp->n_lags > 0) {
                        json_t *sm = json_object_get(o, "summary");
                        (void)json_object_set_new(sm, "triggerLagMedianMs", json_real(l50));
                        (void)json_object_set_new(sm, "triggerLagP95Ms", json_real(l95));
                }
                if (o && rp->totals.n > 0)
                        (void)json_object_set_new(json_object_get(o, "summary"), "counters", counters_json(&rp->totals));
                char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
                if (s)
                        printf("%s\n", s);
                free(s);
                json_decref(o);
        } else
                json_decref(rp->rounds);
        rp->rounds = NULL;
        free(rp->deaths);
        free(rp->recovers);
        free(rp->lags);
        rp->deaths = rp->recovers = rp->lags = NULL;
        return ret;
}
