# SPDX-License-Identifier: LGPL-2.1-or-later
# End-to-end and crash-recovery tests, run by svd_integration_test() from
# tests/CMakeLists.txt. Each is tests/integration/NAME.sh: POSIX sh (dash and
# busybox sh), TAP output, exit 77 to skip.
svd_integration_test(e2e-basic)
svd_integration_test(e2e-restart)
svd_integration_test(e2e-stop-timeout)
svd_integration_test(e2e-permissions)
svd_integration_test(e2e-access)
svd_integration_test(e2e-socket-path)
svd_integration_test(socket-activation)
# Socket units: enabling, dependencies naming them, their commands and socket options.
svd_integration_test(socket-units)
# Accept=yes: an instance of NAME@.service per connection, MaxConnections=, StandardInput=socket.
svd_integration_test(socket-accept)
# svd.conf: the units' defaults, ForwardOutput=, options over the file, re-exec, bad lines.
svd_integration_test(svd-conf)
svd_integration_test(crash)
svd_integration_test(contain)
svd_integration_test(tree-guard)
svd_integration_test(creds)
# Sandboxing keys: the policy for keys svd does not enforce, then each key from inside the service.
svd_integration_test(sandbox-policy)
svd_integration_test(sandbox-mounts)
svd_integration_test(sandbox-seccomp)
svd_integration_test(sandbox-users)
svd_integration_test(sandbox-dynuser)
svd_integration_test(sandbox-process)
# The device and IP access lists: BPF programs on the service's cgroup (root, cgroup2).
svd_integration_test(sandbox-bpf)
svd_integration_test(e2e-kill)
svd_integration_test(e2e-notify)
svd_integration_test(e2e-deps)
svd_integration_test(e2e-restart-policy)
svd_integration_test(e2e-logs)
svd_integration_test(e2e-events)
svd_integration_test(e2e-reload)
svd_integration_test(e2e-restore)
# Enabling: the .wants/ links of the unit directory, what starts after a restart, svctl's verbs.
svd_integration_test(e2e-enable)
# Units as packages ship them: environment files, variables, specifiers, templates.
svd_integration_test(e2e-envfile)
svd_integration_test(e2e-exec-prefix)
# [Unit] semantics: Condition*=/Assert*=; systemctl's verbs and exit codes.
svd_integration_test(e2e-conditions)
svd_integration_test(e2e-svctl-unit)
svd_integration_test(e2e-unit-relations)
svd_integration_test(e2e-exec-commands)
svd_integration_test(e2e-exit-status)
svd_integration_test(e2e-group-exit)
# Service types and the execution environment.
svd_integration_test(e2e-forking)
svd_integration_test(e2e-idle)
svd_integration_test(e2e-dbus)
svd_integration_test(e2e-exec-dirs)
svd_integration_test(e2e-tty)
# svd as a container's init: PID 1 of a PID namespace.
svd_integration_test(init-reap)
svd_integration_test(init-signals)
svd_integration_test(init-main)
svd_integration_test(init-output)
# svd as the init of a podman container (runc), the example units in a busybox root.
svd_integration_test(container-podman)
# The vfork spawn path that plain builds ship, under load (the sanitizer build skips it).
svd_integration_test(spawn-vfork)
# Hostile clients and resource exhaustion: svd stays bounded and serves the others
# (tests/lib/hostile.c, hostile.sh).
svd_integration_test(hostile-input)
svd_integration_test(hostile-connections)
svd_integration_test(hostile-disconnect)
svd_integration_test(e2e-list-long)
svd_integration_test(exhaust-nofile)
svd_integration_test(exhaust-flood)
svd_integration_test(exhaust-reload)
# Re-exec with the pidfds carried across execve().
svd_integration_test(e2e-reexec)
# 21 re-execs of 50 services take ~2.5 min on an idle 2-core machine and
# several times that while the machine is busy.
set_tests_properties(e2e-reexec PROPERTIES TIMEOUT 900)
# One svd per control socket: a second one changes nothing, in a storm, at
# start-up, during a re-exec and a stop; after a kill -9 it takes over.
svd_integration_test(single-instance)
# svd-crashtest end to end: a recovery bug caught by the check, a survivor
# reported, a log trigger that fires at its line.
svd_integration_test(crashtest-runner)
# svd-crashtest's cgroup faults: the freezer (svd, a service's tree) against SIGSTOP, and
# the OOM killer through memory.max of svd's own cgroup (skipped without a memory controller).
svd_integration_test(crashtest-cgroup)
# The README's worked example (contrib/crashtest-redis.sh: redis-server under
# svd, every acknowledged write checked after each crash). On the host only:
# the lab's image has neither contrib/ nor redis-server.
add_test(NAME crashtest-example COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/examples/crashtest-redis.sh)
set_tests_properties(crashtest-example PROPERTIES LABELS integration TIMEOUT 300 SKIP_RETURN_CODE 77
        ENVIRONMENT "SVD=$<TARGET_FILE:svd>;SVCTL=$<TARGET_FILE:svctl>;SVD_SOURCE_DIR=${PROJECT_SOURCE_DIR};SVD_TESTS=${CMAKE_CURRENT_SOURCE_DIR};SVD_TEST_HELPERS=${CMAKE_CURRENT_BINARY_DIR}")
# PostgreSQL under the power-loss fault (contrib/crashtest-postgres.sh): fsync=on loses no
# acknowledged commit, fsync=off does. On the host only, like the redis example.
add_test(NAME crashtest-postgres COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/examples/crashtest-postgres.sh)
set_tests_properties(crashtest-postgres PROPERTIES LABELS integration TIMEOUT 600 SKIP_RETURN_CODE 77
        ENVIRONMENT "SVD=$<TARGET_FILE:svd>;SVCTL=$<TARGET_FILE:svctl>;SVD_SOURCE_DIR=${PROJECT_SOURCE_DIR};SVD_TESTS=${CMAKE_CURRENT_SOURCE_DIR};SVD_TEST_HELPERS=${CMAKE_CURRENT_BINARY_DIR}")
# svd's crash torture through svd-crashtest: kill -9 of svd during storms of
# start/stop/restart/daemon-reexec under load; bounded to ~150 s of rounds.
svd_integration_test(crashtest-torture)
set_tests_properties(crashtest-torture PROPERTIES TIMEOUT 600)
# Whole process trees with host PIDs die with svd: seeded svd-kill, svd-kill
# inside a re-execution and svd-oom rounds, judged by svd-crashtest.
svd_integration_test(crashtest-trees)
# svd-crashtest refuses what it cannot honour, names what svd could not
# load, bounds the check, reports the workload's end.
svd_integration_test(crashtest-options)
set_tests_properties(crashtest-trees PROPERTIES TIMEOUT 300)
# The power-loss fault: svd-powerfs alone (what survives a cut), and through svd-crashtest the
# controls: writers that skip an fsync fail, the same writers done right pass.
svd_integration_test(crashtest-powerloss)
# Out of descriptors with services that restart at once: a back-off of svd's own, a quiet log.
svd_integration_test(exhaust-restart)
# A unit whose User= does not exist yet loads; its start fails with the reason until the user exists.
svd_integration_test(user-later)
# The fds svd holds per running service: the pidfd and one output pipe.
svd_integration_test(fds-per-service)
# SuccessAction=, FailureAction=, StartLimitAction=: exit, exit-force, reboot and poweroff as PID 1.
svd_integration_test(unit-actions)
