/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parsers of single values: booleans, numbers, time spans, signals, ids. */
#include "parse-util.h"

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "macros.h"

#define WHITESPACE " \t\n\r"

/* Same lengths as systemd's time-util.h: a month is 30.44 days, a year 365.25 days. */
#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR   (60ULL * USEC_PER_MINUTE)
#define USEC_PER_DAY    (24ULL * USEC_PER_HOUR)
#define USEC_PER_WEEK   (7ULL * USEC_PER_DAY)
#define USEC_PER_MONTH  (2629800ULL * USEC_PER_SEC)
#define USEC_PER_YEAR   (31557600ULL * USEC_PER_SEC)

/* The highest offset from SIGRTMIN that signal_to_string() names. Linux has _NSIG 65 and glibc reserves
 * two real-time signals, so SIGRTMAX - SIGRTMIN is 30 there; 32 covers a libc that reserves none. */
#define SIGNAL_RT_OFFSET_MAX 32

static bool in_charset(const char *s, const char *charset) {
        return s[strspn(s, charset)] == '\0';
}

int safe_atou64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        assert(s);
        assert(ret);

        /* Only digits: no sign, no whitespace, no base prefix (strtoull() would take all of those). */
        if (*s == '\0' || !in_charset(s, "0123456789"))
                return -EINVAL;

        for (const char *p = s; *p; p++) {
                unsigned d = (unsigned) (*p - '0');

                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }

        *ret = v;
        return 0;
}

int safe_atoi(const char *s, int *ret) {
        bool negative = false;
        uint64_t v;
        int r;

        assert(s);
        assert(ret);

        if (*s == '-') {
                negative = true;
                s++;
        }

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;

        if (negative) {
                if (v > (uint64_t) INT_MAX + 1)
                        return -ERANGE;
                *ret = v == (uint64_t) INT_MAX + 1 ? INT_MIN : -(int) v;
        } else {
                if (v > INT_MAX)
                        return -ERANGE;
                *ret = (int) v;
        }
        return 0;
}

int parse_boolean(const char *s, bool *ret) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        assert(s);
        assert(ret);

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        return -EINVAL;
}

/* The suffixes systemd's parse_sec() knows, longest first where one is a prefix of another
 * ("msec" before "ms" before "m"). */
static const struct {
        const char *suffix;
        uint64_t usec;
} time_suffixes[] = {
        { "seconds", USEC_PER_SEC },
        { "second", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "s", USEC_PER_SEC },
        { "minutes", USEC_PER_MINUTE },
        { "minute", USEC_PER_MINUTE },
        { "min", USEC_PER_MINUTE },
        { "months", USEC_PER_MONTH },
        { "month", USEC_PER_MONTH },
        { "M", USEC_PER_MONTH },
        { "msec", USEC_PER_MSEC },
        { "ms", USEC_PER_MSEC },
        { "m", USEC_PER_MINUTE },
        { "hours", USEC_PER_HOUR },
        { "hour", USEC_PER_HOUR },
        { "hr", USEC_PER_HOUR },
        { "h", USEC_PER_HOUR },
        { "days", USEC_PER_DAY },
        { "day", USEC_PER_DAY },
        { "d", USEC_PER_DAY },
        { "weeks", USEC_PER_WEEK },
        { "week", USEC_PER_WEEK },
        { "w", USEC_PER_WEEK },
        { "years", USEC_PER_YEAR },
        { "year", USEC_PER_YEAR },
        { "y", USEC_PER_YEAR },
        { "usec", 1 },
        { "us", 1 },
        { "\xce\xbcs", 1 }, /* U+03BC GREEK SMALL LETTER MU */
        { "\xc2\xb5s", 1 }, /* U+00B5 MICRO SIGN */
};

/* Returns the position after a known suffix and sets *ret, or returns p unchanged. */
static const char *extract_multiplier(const char *p, uint64_t *ret) {
        for (size_t i = 0; i < ELEMENTSOF(time_suffixes); i++) {
                size_t n = strlen(time_suffixes[i].suffix);

                if (strneq(p, time_suffixes[i].suffix, n)) {
                        *ret = time_suffixes[i].usec;
                        return p + n;
                }
        }
        return p;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

int parse_sec(const char *s, uint64_t *ret) {
        uint64_t total = 0;
        bool something = false;
        const char *p;

        assert(s);
        assert(ret);

        p = s + strspn(s, WHITESPACE);
        if (strneq(p, "infinity", strlen("infinity"))) {
                p += strlen("infinity");
                p += strspn(p, WHITESPACE);
                if (*p != '\0')
                        return -EINVAL;
                *ret = USEC_INFINITY;
                return 0;
        }

        /* A sequence of "NUMBER[.FRACTION][ ]UNIT" items, summed; a bare number is seconds. The grammar is
         * systemd's parse_time(), so that "1min 30s", "1min30s", "1.5s" and "5 s" all work. */
        for (;;) {
                uint64_t whole = 0, multiplier = USEC_PER_SEC, k;
                const char *digits, *fraction = NULL, *after;

                p += strspn(p, WHITESPACE);
                if (*p == '\0') {
                        if (!something)
                                return -EINVAL;
                        break;
                }

                digits = p;
                for (; is_digit(*p); p++) {
                        unsigned d = (unsigned) (*p - '0');

                        if (whole > (UINT64_MAX - d) / 10)
                                return -ERANGE;
                        whole = whole * 10 + d;
                }
                if (*p == '.') {
                        fraction = ++p;
                        while (is_digit(*p))
                                p++;
                        /* Refuse "3.", "3.s" and "3. 1". */
                        if (p == fraction)
                                return -EINVAL;
                }
                /* Refuse signs, "", ".": there must be at least one digit. */
                if (p == digits)
                        return -EINVAL;

                after = extract_multiplier(p + strspn(p, WHITESPACE), &multiplier);
                /* Refuse "12.34.56" and "5x", but take "1 2" as "1s 2s" like systemd. */
                if (after == p && *after != '\0')
                        return -EINVAL;
                p = after;

                /* Every finite sum must stay below USEC_INFINITY, which only "infinity" gives. */
                if (whole > (USEC_INFINITY - 1) / multiplier)
                        return -ERANGE;
                k = whole * multiplier;
                if (k >= USEC_INFINITY - total)
                        return -ERANGE;
                total += k;

                if (fraction) {
                        uint64_t m = multiplier / 10;

                        /* Digits below one microsecond are dropped. */
                        for (const char *f = fraction; is_digit(*f); f++, m /= 10) {
                                k = (uint64_t) (*f - '0') * m;
                                if (k >= USEC_INFINITY - total)
                                        return -ERANGE;
                                total += k;
                        }
                }

                something = true;
        }

        *ret = total;
        return 0;
}

char *format_timespan(char *buf, size_t l, uint64_t usec) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } table[] = {
                { "y", USEC_PER_YEAR }, { "month", USEC_PER_MONTH }, { "w", USEC_PER_WEEK },
                { "d", USEC_PER_DAY },  { "h", USEC_PER_HOUR },      { "min", USEC_PER_MINUTE },
                { "s", USEC_PER_SEC },  { "ms", USEC_PER_MSEC },     { "us", 1 },
        };
        char *p = buf;

        assert(buf);
        assert(l > 0);

        if (usec == USEC_INFINITY) {
                (void) snprintf(buf, l, "infinity");
                return buf;
        }
        if (usec == 0) {
                (void) snprintf(buf, l, "0");
                return buf;
        }

        *buf = '\0';
        for (size_t i = 0; i < ELEMENTSOF(table) && usec > 0; i++) {
                uint64_t a, b;
                int k;

                if (usec < table[i].usec)
                        continue;

                a = usec / table[i].usec;
                b = usec % table[i].usec;

                if (usec < USEC_PER_MINUTE && b > 0 && table[i].usec > 1) {
                        /* Below a minute, write the rest as a decimal fraction of this unit: "1.5s",
                         * "2.25ms"; it parses back to the same value. */
                        char frac[8] = {}; /* table[i].usec is at most 10^6 here: six digits */
                        size_t digits = 0;

                        for (uint64_t cc = table[i].usec; cc > 1; cc /= 10)
                                digits++;
                        assert(digits < sizeof(frac));
                        for (size_t j = digits; j > 0; j--, b /= 10)
                                frac[j - 1] = (char) ('0' + b % 10);
                        for (size_t n = digits; n > 0 && frac[n - 1] == '0'; n--)
                                frac[n - 1] = '\0';

                        k = snprintf(p, l, "%s%" PRIu64 ".%s%s", p > buf ? " " : "", a, frac,
                                     table[i].suffix);
                        b = 0;
                } else
                        k = snprintf(p, l, "%s%" PRIu64 "%s", p > buf ? " " : "", a, table[i].suffix);

                if (k < 0 || (size_t) k >= l)
                        break; /* truncated; snprintf() has terminated it */
                p += k;
                l -= (size_t) k;
                usec = b;
        }

        return buf;
}

/* Indexed by signal number; the standard Linux signals. */
static const char *const signal_names[] = {
        [SIGHUP] = "SIGHUP",       [SIGINT] = "SIGINT",       [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
        [SIGTRAP] = "SIGTRAP",     [SIGABRT] = "SIGABRT",     [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",
        [SIGKILL] = "SIGKILL",     [SIGUSR1] = "SIGUSR1",     [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
        [SIGPIPE] = "SIGPIPE",     [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM",
#ifdef SIGSTKFLT
        [SIGSTKFLT] = "SIGSTKFLT",
#endif
        [SIGCHLD] = "SIGCHLD",     [SIGCONT] = "SIGCONT",     [SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP",
        [SIGTTIN] = "SIGTTIN",     [SIGTTOU] = "SIGTTOU",     [SIGURG] = "SIGURG",   [SIGXCPU] = "SIGXCPU",
        [SIGXFSZ] = "SIGXFSZ",     [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH",
        [SIGIO] = "SIGIO",         [SIGPWR] = "SIGPWR",       [SIGSYS] = "SIGSYS",
};

/* Constant strings, so that signal_to_string() needs no static buffer. */
static const char *const signal_rt_names[SIGNAL_RT_OFFSET_MAX + 1] = {
        "SIGRTMIN",    "SIGRTMIN+1",  "SIGRTMIN+2",  "SIGRTMIN+3",  "SIGRTMIN+4",  "SIGRTMIN+5",
        "SIGRTMIN+6",  "SIGRTMIN+7",  "SIGRTMIN+8",  "SIGRTMIN+9",  "SIGRTMIN+10", "SIGRTMIN+11",
        "SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15", "SIGRTMIN+16", "SIGRTMIN+17",
        "SIGRTMIN+18", "SIGRTMIN+19", "SIGRTMIN+20", "SIGRTMIN+21", "SIGRTMIN+22", "SIGRTMIN+23",
        "SIGRTMIN+24", "SIGRTMIN+25", "SIGRTMIN+26", "SIGRTMIN+27", "SIGRTMIN+28", "SIGRTMIN+29",
        "SIGRTMIN+30", "SIGRTMIN+31", "SIGRTMIN+32",
};

const char *signal_to_string(int sig) {
        if (sig > 0 && (size_t) sig < ELEMENTSOF(signal_names) && signal_names[sig])
                return signal_names[sig];
        if (sig >= SIGRTMIN && sig <= SIGRTMAX && sig - SIGRTMIN <= SIGNAL_RT_OFFSET_MAX)
                return signal_rt_names[sig - SIGRTMIN];
        return NULL;
}

/* "RTMIN", "RTMIN+n", "RTMAX", "RTMAX-n", as in systemd. SIGRTMIN is a run-time value in glibc. */
static int signal_rt_from_string(const char *s, int *ret) {
        int base, sign, n = 0, sig, r;

        if (strneq(s, "RTMIN", 5)) {
                base = SIGRTMIN;
                sign = 1;
        } else if (strneq(s, "RTMAX", 5)) {
                base = SIGRTMAX;
                sign = -1;
        } else
                return -EINVAL;

        s += 5;
        if (*s != '\0') {
                if (*s != (sign > 0 ? '+' : '-') || !is_digit(s[1]))
                        return -EINVAL;
                r = safe_atoi(s + 1, &n);
                if (r < 0)
                        return r;
                if (n > SIGRTMAX - SIGRTMIN)
                        return -ERANGE;
        }

        sig = base + sign * n;
        if (sig < SIGRTMIN || sig > SIGRTMAX)
                return -ERANGE;
        *ret = sig;
        return 0;
}

int signal_from_string(const char *s, int *ret) {
        int sig, r;

        assert(s);
        assert(ret);

        /* A number is taken as it is, without a "SIG" prefix, and only in the valid range. */
        if (is_digit(*s)) {
                r = safe_atoi(s, &sig);
                if (r < 0)
                        return r;
                if (sig < 1 || sig > SIGRTMAX)
                        return -ERANGE;
                *ret = sig;
                return 0;
        }

        /* Names are case-sensitive, with or without "SIG", like systemd's signal_from_string(). */
        if (strneq(s, "SIG", 3))
                s += 3;

        for (size_t i = 1; i < ELEMENTSOF(signal_names); i++)
                if (signal_names[i] && streq(s, signal_names[i] + 3)) {
                        *ret = (int) i;
                        return 0;
                }

        return signal_rt_from_string(s, ret);
}

static int parse_id(const char *s, uint32_t *ret) {
        uint64_t v;
        int r;

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        /* (uid_t) -1 means "no change" to setresuid(), and 65535 is the 16-bit -1 of old interfaces;
         * systemd's uid_is_valid() refuses both. */
        if (v >= UINT32_MAX || v == 65535)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

int parse_uid(const char *s, uid_t *ret) {
        uint32_t v;
        int r;

        assert(s);
        assert(ret);

        r = parse_id(s, &v);
        if (r < 0)
                return r;
        *ret = (uid_t) v;
        return 0;
}

int parse_gid(const char *s, gid_t *ret) {
        uint32_t v;
        int r;

        assert(s);
        assert(ret);

        r = parse_id(s, &v);
        if (r < 0)
                return r;
        *ret = (gid_t) v;
        return 0;
}
