/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Socket activation (systemd.socket(5), Accept=no): the socket units of the unit directory, their
 * listening sockets and what a connection on them starts. The sockets belong to svd: a socket unit
 * that starts binds them (at svd's start when it is wanted by default.target or sockets.target, or
 * by `svctl start NAME.socket`); svd watches them in its loop and, at the first connection or
 * datagram, stops watching and starts the service through the operator's start path. The service
 * gets the fds at 3, 4, ... with $LISTEN_FDS, $LISTEN_FDNAMES and $LISTEN_PID (sd_listen_fds(3)),
 * whoever starts it. Once it has stopped, svd watches again. Stopping the socket unit closes the
 * sockets (and with RemoveOnStop= removes their files). A socket that cannot be bound fails that
 * socket unit's start, with the reason; nothing else is affected. As in systemd, a socket unit
 * fails when it triggers more than SOCKET_TRIGGER_LIMIT_BURST times in SOCKET_TRIGGER_LIMIT_USEC,
 * or when its service hits its start limit: a service that fails at once must not be started again
 * and again for a connection nobody takes.
 *
 * After a crash of svd (the wanted file, wanted.h, is there), the next svd binds again, before it
 * starts any service, every socket unit that listened: those wanted by their enabling, and those
 * started by hand (their start is recorded once they listen; a stop by hand is recorded too, and
 * holds an enabled one back; a failure drops the start). A connection's start of the service is
 * recorded as the operator's start is, so the service that ran is started again, with the sockets.
 *
 * A socket unit's ExecStartPre= runs before the bind, ExecStartPost= after it (the sockets bound but
 * not watched yet), ExecStopPre= before the close, ExecStopPost= after it (also after a failed
 * start): manager-socket-exec.h. While they run it is in START_PRE, START_POST, STOP_PRE or
 * STOP_POST; a start or stop of svctl, and a service After= it, wait for them; one that fails makes
 * the socket unit failed, with the reason. A command does not survive a re-exec: it is killed. When
 * svd exits, or the unit's file is gone, the sockets close without ExecStopPre= and ExecStopPost=.
 *
 * Accept=yes (manager-socket-accept.c): svd accepts each connection itself and starts an instance of
 * the template NAME@.service for it, named as systemd names them: NAME@N-LOCAL-REMOTE for IP
 * ("echo@3-127.0.0.1:7-127.0.0.1:51234", N counting the connections accepted so far), NAME@N-PID-UID
 * for AF_UNIX (the peer's, or NAME@N-unknown). The instance gets the connection as fd 3 with
 * $LISTEN_FDS=1 and $LISTEN_FDNAMES=connection, or as stdin/stdout with StandardInput=socket, and
 * $REMOTE_ADDR/$REMOTE_PORT for IP. A connection beyond MaxConnections= (in all) or
 * MaxConnectionsPerSource= (from one IP address, or AF_UNIX peer uid) is accepted and closed at
 * once. The instances are transient: once settled (the connection ended, or the start failed) they
 * are dropped from the table, the failed ones after their failure is logged. A template that is
 * missing or does not load fails the socket unit, as with Accept=no. accept() failing for want of
 * descriptors or memory stops the watch for a while (10 ms, doubling up to 1 s) rather than waking
 * the loop again at once; at most SOCKET_ACCEPT_BURST connections are taken per wake-up; the warnings
 * about connections closed at once are rate-limited (a flood of them is counted). The trigger
 * limit is Accept=no's: with Accept=yes, MaxConnections= bounds what connections start.
 *
 * The names are the units' without ".socket"; svctl and the protocol name them NAME.socket.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include <jansson.h>

#include "basic/serialize.h"
#include "creds.h"

#include "service.h"
#include "service-def.h"
#include "unit-install.h"
#include "unit.h"

typedef struct Manager Manager;
typedef struct Socket Socket;
typedef struct SocketControl SocketControl;

/* A start or stop that waits for the socket unit's commands: r is 0 when it listens (a start) or is
 * inactive (a stop), else -EIO with Socket.last_error saying why, or -ECANCELED when the socket unit
 * went (its file removed, svd exits). */
typedef void (*SocketDoneFn)(Socket *s, int r, void *userdata);
typedef struct SocketWaiter {
        SocketDoneFn done;
        void *userdata;
} SocketWaiter;

/* systemd.socket(5), TriggerLimitIntervalSec= and TriggerLimitBurst= (Accept=no): the defaults. */
#define SOCKET_TRIGGER_LIMIT_USEC (2 * 1000000ULL)
#define SOCKET_TRIGGER_LIMIT_BURST 20U

typedef enum SocketState {
        SOCKET_INACTIVE,
        SOCKET_LISTENING, /* bound, watched */
        SOCKET_RUNNING,   /* bound, its service runs (or starts): not watched */
        SOCKET_FAILED,
        SOCKET_START_PRE,  /* its ExecStartPre= run, nothing bound yet */
        SOCKET_START_POST, /* bound, not watched: its ExecStartPost= run */
        SOCKET_STOP_PRE,   /* bound, not watched: its ExecStopPre= run */
        SOCKET_STOP_POST,  /* closed: its ExecStopPost= run */
        _SOCKET_STATE_MAX,
        _SOCKET_STATE_INVALID = -EINVAL,
} SocketState;

const char *socket_state_to_string(SocketState s);

/* An instance of an Accept=yes socket unit that runs (or starts), and where its connection came from. */
typedef struct SocketConnection {
        char *service; /* "echo@0-127.0.0.1:7-127.0.0.1:51234" */
        char *source;  /* what MaxConnectionsPerSource= counts: the peer's IP address, "uid:UID" for
                        * AF_UNIX, "unknown" when there is no telling */
} SocketConnection;

struct Socket {
        Manager *manager;
        char *name;       /* "echo" of echo.socket */
        char *path;       /* the unit file */
        Unit *unit;       /* NULL when it did not load */
        char *load_error;
        uid_t uid;        /* SocketUser=, SocketGroup= resolved at load; -1: svd's own */
        gid_t gid;
        SocketState state;
        int *fds;         /* one per Listen*= while bound, else NULL */
        sd_event_source **sources;
        char *fd_names;   /* $LISTEN_FDNAMES of its fds */
        char *last_error; /* why its last start failed */
        uint64_t n_triggers; /* connections or datagrams that started the service */
        uint64_t trigger_window_usec; /* CLOCK_MONOTONIC start of the trigger limit's window */
        unsigned trigger_window_n;    /*   triggers in it */
        bool removed;        /* its file is gone */
        WantedOverride wanted; /* the operator's last start or stop (wanted.h) */
        UnitFileState file_state; /* its enabling (unit-install.h), as last read */
        Credentials exec_creds;   /* User=, Group= of its commands, resolved at load (set: given) */
        SocketControl *control;   /* its command that runs (manager-socket-exec.h); NULL: none yet */
        bool stop_failed;         /* the stop under way ends failed */
        SocketWaiter *waiters;
        size_t n_waiters;
        sd_event_source *recheck_source; /* its service ended while its start job was not done yet */

        /* Accept=yes (manager-socket-accept.c). */
        uint64_t n_accepted;  /* connections that got an instance: the N of the next instance's name */
        SocketConnection *connections; /* the instances that have not settled yet */
        size_t n_connections;
        sd_event_source *accept_retry_source; /* accept() lacked resources: watching again at this timer */
        uint64_t accept_retry_usec;           /*   its current back-off, 0 after an accept() that worked */
        uint64_t accept_log_window_usec;      /* the messages about refused connections: */
        unsigned accept_log_count, accept_log_suppressed; /*   SOCKET_ACCEPT_LOG_BURST per window */
};

/* Loads the socket units of the unit directory: added ones are loaded (not started), changed ones
 * that are not bound take the new file (a bound one keeps its definition), removed ones are stopped
 * and dropped. 0 or -errno (directory). */
int manager_sockets_load(Manager *m);
/* Start-up: binds the socket units wanted by default.target or sockets.target, before any service;
 * after a crash (restored: the wanted file was there), those the operator started, and not those
 * the operator stopped, whatever their enabling: what listened before the crash listens again. */
void manager_sockets_start_wanted(Manager *m, bool restored);
/* The wanted file (wanted.h): records the operator's start or stop of s (true when that changed
 * it); the lines of the socket units' overrides ("start NAME.socket"; 0 or -ENOMEM); and
 * the WantedApplyFn that takes such a line back (userdata: the Manager). */
bool manager_socket_set_wanted(Socket *s, WantedOverride w);
int manager_sockets_wanted_lines(Manager *m, char ***ret);
int manager_socket_apply_wanted(const char *name, WantedOverride w, void *userdata);
/* Its enabling, from the links last read (manager-install.c): ENABLED when it is bound at start-up. */
UnitFileState manager_socket_file_state(Manager *m, const Socket *s);
/* The socket unit `name` ("echo" or "echo.socket"), or NULL. */
Socket *manager_socket_find(Manager *m, const char *name);
/* The service a socket unit activates: Service=, else its own name. */
const char *socket_service_name(const Socket *s);
/* Binds and watches; 0 when it listens (or did), -errno with *ret_error (may be NULL) saying why not. */
int manager_socket_start(Socket *s, char **ret_error);
/* A service's Requires=/Wants= of the socket unit `name` ("echo.socket"): starts it. 1 when it
 * listens, 0 when its start goes on, -ESRCH: no such socket unit, else -errno with *ret_reason. */
int manager_socket_start_dependency(Manager *m, const char *name, char **ret_reason);
/* Whether its start goes on (its ExecStartPre= or ExecStartPost= run). */
bool manager_socket_is_starting(const Socket *s);
/* Closes its sockets at once (RemoveOnStop=: removes their files), without its ExecStopPre= and
 * ExecStopPost=; a command that runs is killed. When svd exits, or the unit's file is gone. */
void manager_socket_stop(Socket *s);
/* The operator's stop: ExecStopPre=, close, ExecStopPost=. 1 while they run (manager_socket_wait()
 * tells the end), 0 when it is inactive. */
int manager_socket_begin_stop(Socket *s);
/* done is called once the start or stop under way has ended (manager_socket_is_busy()). */
int manager_socket_wait(Socket *s, SocketDoneFn done, void *userdata);
void manager_socket_unwait(Socket *s, void *userdata);
/* Whether its commands run: a start or a stop is under way. */
bool manager_socket_is_busy(const Socket *s);
/* svd exits: every socket unit stops, and is freed. */
void manager_sockets_free(Manager *m);

/* Re-exec (reexec.h): the socket units as the state document's "sockets", each with its unit file's
 * bytes (the new svd parses the same definition), state, counters and listening fds, named in fds so
 * that they survive the exec: no connection is refused while svd re-executes, the kernel queues
 * them. manager_sockets_deserialize() takes them back, after the services: NULL (an older svd's
 * state) loads the directory's socket units unbound. NULL / -ENOMEM. */
json_t *manager_sockets_serialize(Manager *m, ReexecFds *fds);
int manager_sockets_deserialize(Manager *m, json_t *sockets);

/* ---- manager-socket-accept.c: Accept=yes ---- */
#define SOCKET_ACCEPT_BURST 16U /* connections accepted per wake-up of one listening socket */
/* Messages about connections closed at once (beyond MaxConnections=, addresses unknown), per socket unit:
 * at most this many in SOCKET_ACCEPT_LOG_INTERVAL_USEC, then one line counting the rest. */
#define SOCKET_ACCEPT_LOG_BURST 10U
#define SOCKET_ACCEPT_LOG_INTERVAL_USEC (10 * 1000000ULL)

/* A listening socket of an Accept=yes socket unit is readable: accepts and starts instances. -errno and
 * *ret_error (malloc'd, may be NULL) when the socket unit is to fail (its template is missing or does
 * not load); else 0. */
int socket_accept_ready(Socket *s, int fd, char **ret_error);
/* The socket unit's sockets close: no retry timer any more (its instances run on). */
void socket_accept_close(Socket *s);
/* The socket unit is freed: its records of the instances go (the instances stay transient). */
void socket_accept_done(Socket *s);
/* Re-exec: "accepted" and "connections" of the socket unit's state object, and back. */
int socket_accept_serialize(Socket *s, json_t *o);
int socket_accept_deserialize(Socket *s, json_t *o);
/* A transient instance changed state: once settled, its connection closes and it is dropped. */
void manager_sockets_accept_service_changed(Manager *m, Service *svc);
/* A transient instance is dropped from the table: its socket unit counts one connection less. */
void manager_sockets_accept_service_gone(Manager *m, Service *svc);

/* From the manager's service callbacks. */
void manager_sockets_service_changed(Manager *m, Service *s);
size_t manager_sockets_listen_fds(Manager *m, Service *s, const int **ret_fds, char **ret_names);
