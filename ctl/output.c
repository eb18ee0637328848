/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How svctl shows what svd sends: escaped output, the getters of a reply's fields, the formatting of
 * times, exits and commands, and systemd's names for svd's states. */
#include "output.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse-util.h"
#include "time-util.h"

#define USEC_PER_SEC_I ((int64_t) USEC_PER_SEC)

/* ---- escaped output ---- */

/* Length of the C1 control (U+0080..U+009F, e.g. CSI U+009B) that starts at
 * s in UTF-8, or 0. */
static size_t c1_control_len(const unsigned char *s) {
        return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

/* When p starts with a control character (C0, DEL, C1), writes it as \xNN
 * (a C1 character's two bytes each) and returns how many bytes it took; 0
 * for anything else. */
static size_t fput_control(const unsigned char *p, FILE *f) {
        if (c1_control_len(p) > 0) {
                fprintf(f, "\\x%02x\\x%02x", p[0], p[1]);
                return 2;
        }
        if (*p < 0x20 || *p == 0x7f) {
                fprintf(f, "\\x%02x", *p);
                return 1;
        }
        return 0;
}

/* Writes s with control characters (C0, DEL, C1) shown as \xNN: a unit's
 * Description= or a peer's error message must not be able to move the
 * cursor or retitle the terminal. */
void fputs_escaped(const char *s, FILE *f) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                size_t n = fput_control(p, f);
                if (n > 0)
                        p += n - 1;
                else
                        fputc(*p, f);
        }
}

/* Columns fputs_escaped() takes for s: one per UTF-8 character, four per escaped byte. */
size_t escaped_width(const char *s) {
        size_t w = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (c1_control_len(p) > 0) {
                        w += 8;
                        p++;
                } else if (*p < 0x20 || *p == 0x7f)
                        w += 4;
                else if ((*p & 0xc0) != 0x80) /* not a continuation byte */
                        w++;
        }
        return w;
}

_printf_(1, 2) void log_error(const char *format, ...) {
        _cleanup_free_ char *s = NULL;
        va_list ap;

        va_start(ap, format);
        int r = vasprintf(&s, format, ap);
        va_end(ap);

        fputs("svctl: ", stderr);
        if (r < 0) {
                s = NULL; /* undefined after a failure */
                fputs("Out of memory.", stderr);
        } else
                fputs_escaped(s, stderr);
        fputc('\n', stderr);
}

/* "label: value" with the label right-aligned in width columns; the value escaped. */
_printf_(3, 0) static void print_labelled(int width, const char *label, const char *format, va_list ap) {
        _cleanup_free_ char *s = NULL;

        if (vasprintf(&s, format, ap) < 0)
                s = NULL;
        printf("%*s: ", width, label);
        fputs_escaped(s ?: "(out of memory)", stdout);
        fputc('\n', stdout);
}

/* "Label: value", labels right-aligned like systemctl status. */
_printf_(2, 3) void print_field(const char *label, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        print_labelled(11, label, format, ap);
        va_end(ap);
}

/* "Key: value", unaligned, so that scripts can cut at the first ": ". */
_printf_(2, 3) void print_info_line(const char *key, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        print_labelled(/* width= */ 0, key, format, ap);
        va_end(ap);
}

bool use_colors(void) {
        const char *term = getenv("TERM");

        return isatty(STDOUT_FILENO) && isempty(getenv("NO_COLOR")) && !(term && streq(term, "dumb"));
}

int print_json(json_t *v) {
        if (!v) {
                puts("{}");
                return 0;
        }

        _cleanup_free_ char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s) {
                log_error("Out of memory.");
                return -ENOMEM;
        }
        puts(s);
        return 0;
}

/* ---- reading svd's replies: every field may be missing or mistyped ---- */

const char *json_get_str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

bool json_get_int(json_t *o, const char *key, int64_t *ret) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v))
                return false;
        *ret = (int64_t) json_integer_value(v);
        return true;
}

json_t *reply_parameters(json_t *reply) {
        return json_object_get(reply, "parameters");
}

/* ---- formatting ---- */

/* "5s ago", "3min ago", "2h ago", "4d ago"; "-" for no time. */
const char *format_ago(char *buf, size_t l, int64_t usec) {
        if (usec <= 0)
                return "-";

        int64_t now = (int64_t) now_usec(CLOCK_REALTIME);
        int64_t d = now > usec ? (now - usec) / USEC_PER_SEC_I : 0;

        if (d < 60)
                snprintf(buf, l, "%llds ago", (long long) d);
        else if (d < 60 * 60)
                snprintf(buf, l, "%lldmin ago", (long long) (d / 60));
        else if (d < 24 * 60 * 60)
                snprintf(buf, l, "%lldh ago", (long long) (d / (60 * 60)));
        else
                snprintf(buf, l, "%lldd ago", (long long) (d / (24 * 60 * 60)));
        return buf;
}

/* "Thu 2026-12-03 08:00:00 UTC" in local time, or NULL. */
const char *format_timestamp(char *buf, size_t l, int64_t usec) {
        if (usec <= 0)
                return NULL;

        time_t t = (time_t) (usec / USEC_PER_SEC_I);
        struct tm tm;
        if (!localtime_r(&t, &tm))
                return NULL;
        if (strftime(buf, l, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return NULL;
        return buf;
}

/* "2026-12-03 08:00:00.123" in local time. */
const char *format_time(char *buf, size_t l, json_t *usec) {
        if (!json_is_integer(usec))
                return "-";
        int64_t u = (int64_t) json_integer_value(usec);
        time_t t = (time_t) (u / USEC_PER_SEC_I);
        struct tm tm;
        char s[64];
        if (!localtime_r(&t, &tm) || strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm) == 0)
                return "-";
        snprintf(buf, l, "%s.%03lld", s, (long long) ((u % USEC_PER_SEC_I) / 1000));
        return buf;
}

static const char *format_signal(char *buf, size_t l, int64_t sig) {
        const char *abbrev = sig > 0 && sig < INT_MAX ? sigabbrev_np((int) sig) : NULL;

        if (abbrev)
                snprintf(buf, l, "SIG%s", abbrev);
        else
                snprintf(buf, l, "%lld", (long long) sig);
        return buf;
}

/* "exited, status=1", "killed, signal=SIGKILL", "dumped, signal=SIGSEGV", or "-". */
const char *format_exit(char *buf, size_t l, json_t *exit_status) {
        const char *code = json_get_str(exit_status, "code");
        int64_t status;
        char sig[32];

        if (!code || !json_get_int(exit_status, "status", &status))
                return "-";

        if (streq(code, "killed") || streq(code, "dumped"))
                snprintf(buf, l, "%s, signal=%s", code, format_signal(sig, sizeof(sig), status));
        else
                snprintf(buf, l, "%s, status=%lld", code, (long long) status);
        return buf;
}

/* A word as ExecStart= would take it back (systemd quoting, which
 * extract-word.c parses, and "$$" for a literal '$', as unit.c reads it):
 * plain when safe, else in single quotes with C escapes. */
static void fputs_exec_word(const char *s, FILE *f) {
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                    "-_./=:,+@%";

        if (*s && strspn(s, plain) == strlen(s)) {
                fputs(s, f);
                return;
        }

        fputc('\'', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                size_t n;
                if (*p == '\'' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p == '$')
                        fputs("$$", f);
                else if (*p == '\n')
                        fputs("\\n", f);
                else if (*p == '\t')
                        fputs("\\t", f);
                else if ((n = fput_control(p, f)) > 0)
                        p += n - 1;
                else
                        fputc(*p, f);
        }
        fputc('\'', f);
}

/* The strings of a JSON array joined by spaces, each quoted as an ExecStart= word when
 * exec_quoting. */
char *join_strings(json_t *array, bool exec_quoting) {
        char *buf = NULL;
        size_t size = 0;
        size_t i;
        json_t *a;

        if (!json_is_array(array) || json_array_size(array) == 0)
                return NULL;

        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        json_array_foreach(array, i, a) {
                const char *v = json_string_value(a) ?: "?";
                if (i > 0)
                        fputc(' ', f);
                if (exec_quoting)
                        fputs_exec_word(v, f);
                else
                        fputs(v, f);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---- systemd's names for svd's states ---- */

/* systemd's ActiveState= and SubState= of svd's states (systemd's service state table). */
static const struct {
        const char *state, *active, *sub;
} state_map[] = {
        { "inactive", "inactive", "dead" },
        { "starting", "activating", "start" },
        { "running", "active", "running" },
        { "reloading", "reloading", "reload" },
        { "exited", "active", "exited" },
        { "stopping", "deactivating", "stop-sigterm" },
        { "killing", "deactivating", "stop-sigkill" },
        { "auto-restart", "activating", "auto-restart" },
        { "failed", "failed", "failed" },
};

const char *active_state_of(const char *state) {
        for (size_t i = 0; state && i < ELEMENTSOF(state_map); i++)
                if (streq(state, state_map[i].state))
                        return state_map[i].active;
        return "inactive";
}

const char *sub_state_of(const char *state) {
        for (size_t i = 0; state && i < ELEMENTSOF(state_map); i++)
                if (streq(state, state_map[i].state))
                        return state_map[i].sub;
        return "dead";
}
