/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of keys (unit-keys.h): one row per key svd knows, naming its section, its parser
 * (unit-parse.h), the field of Unit it sets and what that parser needs besides. */
#include "unit-keys.h"

#include <limits.h>

#include "basic/strv.h"
#include "logfile.h"

#define UNIT_RESTART_STEPS_MAX 3600U /* RestartSteps= */

#define UNIT_FIELD(f) .offset = offsetof(Unit, f), .size = sizeof(((Unit *) NULL)->f)
/* A systemd key svd does not implement yet: a warning of its own rather than "Unknown key". */
#define KEY_NOT_YET(s, n) { .section = (s), .name = (n) }
#define SIZE_EXPECTED "expected a size such as '256K' or '1M'"

/* A sandboxing key svd does not enforce: the unit records it (UnitSandbox.not_applied) and the
 * manager refuses to run the unit without it, unless svd runs with --allow-unsandboxed. */
#define KEY_SANDBOX_NOT_YET(n) { .section = "Service", .name = (n), .flags = KEY_SANDBOX }
/* A sandboxing key svd enforces (unit-sandbox.c parses it). */
#define KEY_SANDBOXING(n) { .section = "Service", .name = (n), .parse = parse_sandbox, .flags = KEY_SANDBOX }

/* A key of the device and IP access lists (unit-access.c parses it). */
#define KEY_ACCESS(n) { .section = "Service", .name = (n), .parse = parse_access, .flags = KEY_SANDBOX }

/* ConditionNAME= and AssertNAME=, two rows (unit-condition.h). */
#define KEY_CONDITION(n)                                                                                      \
        { "Unit", "Condition" n, parse_condition, UNIT_FIELD(conditions) },                                   \
        { "Unit", "Assert" n, parse_condition, UNIT_FIELD(conditions) }

/* TimeoutSec= sets TimeoutStartSec= and TimeoutStopSec=, as in systemd: through their rows. */
static int parse_timeout_sec(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const keys[] = { "TimeoutStartSec", "TimeoutStopSec" };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const UnitKey *t = unit_key_find("Service", keys[i]);
                assert(t);
                int r = t->parse(p, t, (uint8_t *) p->unit + t->offset);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Every key svd knows, one row each; adding a key is adding a row (and its field in Unit). */
static const UnitKey unit_keys[] = {
        { "Unit", "Description", parse_string, UNIT_FIELD(description) },
        { "Unit", "Documentation", parse_documentation, UNIT_FIELD(documentation) },
        { "Unit", "Requires", parse_dependency, UNIT_FIELD(dependencies[UNIT_REQUIRES]) },
        { "Unit", "Wants", parse_dependency, UNIT_FIELD(dependencies[UNIT_WANTS]) },
        { "Unit", "After", parse_dependency, UNIT_FIELD(dependencies[UNIT_AFTER]) },
        { "Unit", "Before", parse_dependency, UNIT_FIELD(dependencies[UNIT_BEFORE]) },
        { "Unit", "Requisite", parse_dependency, UNIT_FIELD(relations[UNIT_REQUISITE]) },
        { "Unit", "BindsTo", parse_binds_to, UNIT_FIELD(relations[UNIT_BINDS_TO]) },
        { "Unit", "PartOf", parse_dependency, UNIT_FIELD(relations[UNIT_PART_OF]) },
        { "Unit", "Conflicts", parse_dependency, UNIT_FIELD(relations[UNIT_CONFLICTS]) },
        { "Unit", "OnFailure", parse_dependency, UNIT_FIELD(relations[UNIT_ON_FAILURE]) },
        { "Unit", "DefaultDependencies", parse_bool_key, UNIT_FIELD(default_dependencies) },
        { "Unit", "SuccessAction", parse_unit_action, UNIT_FIELD(success_action) },
        { "Unit", "FailureAction", parse_unit_action, UNIT_FIELD(failure_action) },
        { "Unit", "StartLimitAction", parse_unit_action, UNIT_FIELD(start_limit_action) },
        { "Unit", "SuccessActionExitStatus", parse_action_exit_status, UNIT_FIELD(success_action_exit_status) },
        { "Unit", "FailureActionExitStatus", parse_action_exit_status, UNIT_FIELD(failure_action_exit_status) },
        KEY_CONDITION("PathExists"),
        KEY_CONDITION("PathExistsGlob"),
        KEY_CONDITION("PathIsDirectory"),
        KEY_CONDITION("PathIsSymbolicLink"),
        KEY_CONDITION("PathIsMountPoint"),
        KEY_CONDITION("PathIsReadWrite"),
        KEY_CONDITION("DirectoryNotEmpty"),
        KEY_CONDITION("FileNotEmpty"),
        KEY_CONDITION("FileIsExecutable"),
        KEY_CONDITION("Virtualization"),
        KEY_CONDITION("Host"),
        KEY_CONDITION("KernelCommandLine"),
        KEY_CONDITION("Security"),
        KEY_CONDITION("Capability"),
        KEY_CONDITION("ACPower"),
        KEY_CONDITION("NeedsUpdate"),
        KEY_CONDITION("FirstBoot"),
        KEY_CONDITION("User"),
        KEY_CONDITION("Group"),
        KEY_CONDITION("Environment"),
        KEY_CONDITION("CPUs"),
        KEY_CONDITION("Architecture"),
        KEY_CONDITION("Credential"),
        { "Unit", "StartLimitIntervalSec", parse_sec_key, UNIT_FIELD(start_limit_interval_usec),
          /* systemd: "infinity" means what it says, 0 switches the limit off */
          .expected = "expected a time span such as '10s', or 0 for no limit" },
        { "Unit", "StartLimitBurst", parse_unsigned_key, UNIT_FIELD(start_limit_burst), .max = UINT_MAX,
          .expected = "expected a number (0: no limit)" },

        { "Service", "Type", parse_type, UNIT_FIELD(type) },
        { "Service", "ExecStart", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START]) },
        { "Service", "WorkingDirectory", parse_working_directory, UNIT_FIELD(working_directory) },
        { "Service", "Environment", parse_environment, UNIT_FIELD(environment) },
        { "Service", "User", parse_user_group, UNIT_FIELD(user), .expected = "not a valid user name or id" },
        { "Service", "Group", parse_user_group, UNIT_FIELD(group),
          .expected = "not a valid group name or id" },
        { "Service", "Restart", parse_restart, UNIT_FIELD(restart) },
        { "Service", "RestartSec", parse_sec_key, UNIT_FIELD(restart_usec), .flags = KEY_SEC_NO_INFINITY,
          .expected = "expected a time span such as '500ms', '2s' or '1min 30s'" },
        { "Service", "KillSignal", parse_signal, UNIT_FIELD(kill_signal) },
        { "Service", "TimeoutStopSec", parse_sec_key, UNIT_FIELD(timeout_stop_usec),
          .flags = KEY_SEC_0_IS_INFINITY,
          .expected = "expected a time span such as '90s' or '5min', or 'infinity'" },
        { "Service", "NoNewPrivileges", parse_bool_key, UNIT_FIELD(no_new_privileges) },
        { "Service", "DynamicUser", parse_bool_key, UNIT_FIELD(dynamic_user) },
        { .section = "Service", .name = "PAMName", .parse = parse_pam_name },
        { "Service", "Personality", parse_personality, UNIT_FIELD(personality) },
        { "Service", "UMask", parse_umask, UNIT_FIELD(umask) },
        { "Service", "LimitNPROC", parse_limit, UNIT_FIELD(limit_nproc) },
        { "Service", "LimitCORE", parse_limit, UNIT_FIELD(limit_core) },
        { "Service", "PrivatePIDs", parse_bool_key, UNIT_FIELD(private_pids) },
        { "Service", "MemoryMax", parse_memory_max, UNIT_FIELD(memory_max),
          .expected = "expected a size such as '512M' or '2G', a percentage, or 'infinity'" },
        { "Service", "TasksMax", parse_tasks_max, UNIT_FIELD(tasks_max) },
        { "Service", "CPUWeight", parse_unsigned_key, UNIT_FIELD(cpu_weight),
          .flags = KEY_POSITIVE, .max = 10000 },
        { "Service", "SupplementaryGroups", parse_supplementary_groups, UNIT_FIELD(supplementary_groups) },
        { "Service", "CapabilityBoundingSet", parse_capabilities, UNIT_FIELD(capability_bounding_set),
          KEY_BOUNDING_SET },
        { "Service", "AmbientCapabilities", parse_capabilities, UNIT_FIELD(ambient_capabilities) },
        { "Service", "StartLimitIntervalSec", parse_sec_key, UNIT_FIELD(start_limit_interval_usec),
          .expected = "expected a time span such as '10s', or 0 for no limit" },
        { "Service", "StartLimitBurst", parse_unsigned_key, UNIT_FIELD(start_limit_burst), .max = UINT_MAX,
          .expected = "expected a number (0: no limit)" },
        { "Service", "RemainAfterExit", parse_bool_key, UNIT_FIELD(remain_after_exit) },
        { "Service", "IgnoreSIGPIPE", parse_bool_key, UNIT_FIELD(ignore_sigpipe) },
        { "Service", "WatchdogSec", parse_sec_key, UNIT_FIELD(watchdog_usec), .flags = KEY_SEC_INFINITY_IS_0,
          .expected = "expected a time span such as '10s', or 0 to switch it off" },
        { "Service", "RestartSteps", parse_unsigned_key, UNIT_FIELD(restart_steps),
          .max = UNIT_RESTART_STEPS_MAX },
        { "Service", "RestartMaxDelaySec", parse_sec_key, UNIT_FIELD(restart_max_delay_usec),
          .expected = "expected a time span such as '1min', or 'infinity'" },
        { "Service", "StandardOutput", parse_log_output, UNIT_FIELD(std_output),
          .aux_offset = offsetof(Unit, std_output_path) },
        { "Service", "StandardError", parse_log_output, UNIT_FIELD(std_error),
          .aux_offset = offsetof(Unit, std_error_path) },
        { "Service", "LogRotateSize", parse_size_key, UNIT_FIELD(log_rotate_size),
          .flags = KEY_SIZE_INFINITY_IS_0,
          .expected = "expected a size in bytes such as '10M', or 'infinity'" },
        { "Service", "LogRotateKeep", parse_unsigned_key, UNIT_FIELD(log_rotate_keep),
          .max = LOGFILE_ROTATE_KEEP_MAX },
        { "Service", "LimitNOFILE", parse_limit, UNIT_FIELD(limit_nofile) },
        /* The commands around the main one and how a service ends (systemd.service(5), systemd.kill(5)). */
        { "Service", "ExecStartPre", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_PRE]) },
        { "Service", "ExecStartPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_POST]) },
        { "Service", "ExecReload", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_RELOAD]) },
        { "Service", "ExecStop", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP]) },
        { "Service", "ExecStopPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP_POST]) },
        { "Service", "KillMode", parse_kill_mode, UNIT_FIELD(kill_mode) },
        { "Service", "SuccessExitStatus", parse_exit_status_set, UNIT_FIELD(success_exit_status) },
        { "Service", "RestartPreventExitStatus", parse_exit_status_set, UNIT_FIELD(restart_prevent_exit_status) },
        { "Service", "RestartForceExitStatus", parse_exit_status_set, UNIT_FIELD(restart_force_exit_status) },
        { "Service", "TimeoutStartSec", parse_sec_key, UNIT_FIELD(timeout_start_usec),
          .flags = KEY_SEC_0_IS_INFINITY,
          .expected = "expected a time span such as '90s' or '5min', or 'infinity'" },
        { .section = "Service", .name = "TimeoutSec", .parse = parse_timeout_sec },


        /* Service types and the execution environment. */
        { "Service", "PIDFile", parse_pid_file, UNIT_FIELD(pid_file) },
        { "Service", "NotifyAccess", parse_notify_access, UNIT_FIELD(notify_access) },
        { "Service", "BusName", parse_bus_name, UNIT_FIELD(bus_name) },
        { "Service", "RuntimeDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_RUNTIME]) },
        { "Service", "StateDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_STATE]) },
        { "Service", "CacheDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_CACHE]) },
        { "Service", "LogsDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_LOGS]) },
        { "Service", "ConfigurationDirectory", parse_exec_directories,
          UNIT_FIELD(exec_directories[EXEC_DIRECTORY_CONFIGURATION]) },
        { "Service", "RuntimeDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_RUNTIME]) },
        { "Service", "StateDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_STATE]) },
        { "Service", "CacheDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_CACHE]) },
        { "Service", "LogsDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_LOGS]) },
        { "Service", "ConfigurationDirectoryMode", parse_directory_mode,
          UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_CONFIGURATION]) },
        { "Service", "RuntimeDirectoryPreserve", parse_preserve, UNIT_FIELD(runtime_directory_preserve) },
        { "Service", "StandardInput", parse_std_input, UNIT_FIELD(std_input) },
        { "Service", "TTYPath", parse_tty_path, UNIT_FIELD(tty_path) },

        /* Keys for units as packages ship them (environment files, specifiers, templates). */
        { "Service", "EnvironmentFile", parse_environment_file, UNIT_FIELD(environment_files) },

        { "Install", "WantedBy", parse_wanted_by, UNIT_FIELD(wanted_by) },
        { "Install", "RequiredBy", parse_wanted_by, UNIT_FIELD(required_by) },
        { "Install", "Alias", parse_dependency, UNIT_FIELD(aliases) },
        { "Install", "Also", parse_dependency, UNIT_FIELD(also) },

        /* Sandboxing (systemd.exec(5)): enforced, or refused unless svd runs with --allow-unsandboxed. */
        KEY_SANDBOXING("PrivateTmp"),
        KEY_SANDBOXING("ProtectSystem"),
        KEY_SANDBOXING("ProtectHome"),
        KEY_SANDBOXING("PrivateDevices"),
        KEY_SANDBOXING("ProtectKernelTunables"),
        KEY_SANDBOXING("ProtectKernelModules"),
        KEY_SANDBOXING("ProtectKernelLogs"),
        KEY_SANDBOXING("ProtectControlGroups"),
        KEY_SANDBOXING("ReadOnlyPaths"),
        KEY_SANDBOXING("ReadWritePaths"),
        KEY_SANDBOXING("InaccessiblePaths"),
        /* The older names of the three above, still read by systemd (redis-server.service uses one). */
        KEY_SANDBOXING("ReadOnlyDirectories"),
        KEY_SANDBOXING("ReadWriteDirectories"),
        KEY_SANDBOXING("InaccessibleDirectories"),
        KEY_SANDBOXING("TemporaryFileSystem"),
        KEY_SANDBOXING("BindPaths"),
        KEY_SANDBOXING("BindReadOnlyPaths"),
        KEY_SANDBOXING("PrivateNetwork"),
        KEY_SANDBOXING("ProtectHostname"),
        KEY_SANDBOXING("PrivateIPC"),
        KEY_SANDBOXING("ProtectProc"),
        KEY_SANDBOXING("ProcSubset"),
        KEY_SANDBOXING("PrivateUsers"),
        KEY_SANDBOXING("SystemCallFilter"),
        KEY_SANDBOXING("SystemCallErrorNumber"),
        KEY_SANDBOXING("SystemCallArchitectures"),
        KEY_SANDBOXING("RestrictAddressFamilies"),
        KEY_SANDBOXING("RestrictNamespaces"),
        KEY_SANDBOXING("RestrictRealtime"),
        KEY_SANDBOXING("LockPersonality"),
        KEY_SANDBOXING("MemoryDenyWriteExecute"),
        KEY_SANDBOXING("RestrictSUIDSGID"),
        KEY_SANDBOXING("ProtectClock"),
        KEY_SANDBOXING("PrivateMounts"),
        KEY_SANDBOXING("MountFlags"),
        KEY_SANDBOXING("RemoveIPC"),
        KEY_SANDBOXING("KeyringMode"),
        KEY_SANDBOX_NOT_YET("NetworkNamespacePath"),
        KEY_SANDBOX_NOT_YET("IPCNamespacePath"),
        KEY_SANDBOX_NOT_YET("RestrictFileSystems"),
        KEY_SANDBOX_NOT_YET("SystemCallLog"),
        KEY_SANDBOXING("ExecPaths"),
        KEY_SANDBOXING("NoExecPaths"),
        KEY_SANDBOX_NOT_YET("RootDirectory"),
        KEY_SANDBOX_NOT_YET("RootImage"),
        KEY_SANDBOX_NOT_YET("MountAPIVFS"),
        KEY_SANDBOX_NOT_YET("MountImages"),
        KEY_SANDBOX_NOT_YET("ExtensionImages"),
        KEY_SANDBOX_NOT_YET("ExtensionDirectories"),
        KEY_SANDBOX_NOT_YET("MemoryKSM"),
        KEY_SANDBOXING("SecureBits"),
        { "Service", "AppArmorProfile", parse_security_label, .flags = KEY_SANDBOX },
        { "Service", "SELinuxContext", parse_security_label, .flags = KEY_SANDBOX },
        { "Service", "SmackProcessLabel", parse_security_label, .flags = KEY_SANDBOX },
        /* The access lists of systemd.resource-control(5), which the service's cgroup enforces
         * (unit-access.h). */
        KEY_ACCESS("DevicePolicy"),
        KEY_ACCESS("DeviceAllow"),
        KEY_ACCESS("IPAddressAllow"),
        KEY_ACCESS("IPAddressDeny"),
        KEY_SANDBOX_NOT_YET("RestrictNetworkInterfaces"),
        KEY_SANDBOX_NOT_YET("SocketBindAllow"),
        KEY_SANDBOX_NOT_YET("SocketBindDeny"),
        /* [Socket] of a socket unit (unit-socket.h). */
        { "Socket", "ListenStream", parse_socket_listen, UNIT_FIELD(socket), .max = SOCKET_LISTEN_STREAM },
        { "Socket", "ListenDatagram", parse_socket_listen, UNIT_FIELD(socket), .max = SOCKET_LISTEN_DATAGRAM },
        { "Socket", "ListenSequentialPacket", parse_socket_listen, UNIT_FIELD(socket), .max = SOCKET_LISTEN_SEQPACKET },
        { "Socket", "ListenFIFO", parse_socket_listen, UNIT_FIELD(socket), .max = SOCKET_LISTEN_FIFO },
        { "Socket", "SocketUser", parse_user_group, UNIT_FIELD(socket.socket_user),
          .expected = "expected a user name or number" },
        { "Socket", "SocketGroup", parse_user_group, UNIT_FIELD(socket.socket_group),
          .expected = "expected a group name or number" },
        { "Socket", "SocketMode", parse_directory_mode, UNIT_FIELD(socket.socket_mode) },
        { "Socket", "DirectoryMode", parse_directory_mode, UNIT_FIELD(socket.directory_mode) },
        { "Socket", "Backlog", parse_unsigned_key, UNIT_FIELD(socket.backlog), .max = INT_MAX },
        { "Socket", "ReusePort", parse_bool_key, UNIT_FIELD(socket.reuse_port) },
        { "Socket", "FreeBind", parse_bool_key, UNIT_FIELD(socket.free_bind) },
        { "Socket", "RemoveOnStop", parse_bool_key, UNIT_FIELD(socket.remove_on_stop) },
        { "Socket", "Accept", parse_socket_accept, UNIT_FIELD(socket) },
        { "Socket", "BindIPv6Only", parse_bind_ipv6_only, UNIT_FIELD(socket.bind_ipv6_only) },
        { "Socket", "Service", parse_socket_service, UNIT_FIELD(socket) },
        { "Socket", "MaxConnections", parse_unsigned_key, UNIT_FIELD(socket.max_connections), .flags = KEY_POSITIVE,
          .max = UINT_MAX },
        { "Socket", "MaxConnectionsPerSource", parse_unsigned_key, UNIT_FIELD(socket.max_connections_per_source),
          .max = UINT_MAX },
        { "Socket", "FileDescriptorName", parse_fd_name, UNIT_FIELD(socket.fd_name) },
        /* The commands around the bind (manager-socket-exec.h); ExecStopPre= in the slot of ExecStop=,
         * which a socket unit has no other use for. */
        { "Socket", "ExecStartPre", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_PRE]) },
        { "Socket", "ExecStartPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_POST]) },
        { "Socket", "ExecStopPre", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP]) },
        { "Socket", "ExecStopPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP_POST]) },
        { "Socket", "TimeoutSec", parse_sec_key, UNIT_FIELD(socket.timeout_usec), .flags = KEY_SEC_0_IS_INFINITY,
          .expected = "expected a time span such as '90s' or '5min', or 'infinity'" },
        { "Socket", "User", parse_user_group, UNIT_FIELD(user), .expected = "not a valid user name or id" },
        { "Socket", "Group", parse_user_group, UNIT_FIELD(group), .expected = "not a valid group name or id" },
        /* Socket options (unit-socket-options.c), applied at the bind (manager-socket-options.c). */
        { "Socket", "KeepAlive", parse_bool_key, UNIT_FIELD(socket.keep_alive) },
        { "Socket", "KeepAliveTimeSec", parse_socket_sec, UNIT_FIELD(socket.keep_alive_time_usec), .max = 32767 },
        { "Socket", "KeepAliveIntervalSec", parse_socket_sec, UNIT_FIELD(socket.keep_alive_interval_usec), .max = 32767 },
        { "Socket", "KeepAliveProbes", parse_unsigned_key, UNIT_FIELD(socket.keep_alive_probes), .max = 127 },
        { "Socket", "NoDelay", parse_bool_key, UNIT_FIELD(socket.no_delay) },
        { "Socket", "Priority", parse_socket_int, UNIT_FIELD(socket.priority), .max = INT_MAX },
        { "Socket", "DeferAcceptSec", parse_socket_sec, UNIT_FIELD(socket.defer_accept_usec), .max = INT_MAX },
        { "Socket", "ReceiveBuffer", parse_socket_size, UNIT_FIELD(socket.receive_buffer), .expected = SIZE_EXPECTED },
        { "Socket", "SendBuffer", parse_socket_size, UNIT_FIELD(socket.send_buffer), .expected = SIZE_EXPECTED },
        { "Socket", "PipeSize", parse_socket_size, UNIT_FIELD(socket.pipe_size), .expected = SIZE_EXPECTED },
        { "Socket", "IPTOS", parse_socket_ip_tos, UNIT_FIELD(socket.ip_tos) },
        { "Socket", "IPTTL", parse_socket_int, UNIT_FIELD(socket.ip_ttl), .flags = KEY_POSITIVE, .max = 255 },
        { "Socket", "Mark", parse_socket_int, UNIT_FIELD(socket.mark), .max = INT_MAX },
        { "Socket", "Broadcast", parse_bool_key, UNIT_FIELD(socket.broadcast) },
        { "Socket", "PassCredentials", parse_bool_key, UNIT_FIELD(socket.pass_credentials) },
        { "Socket", "PassSecurity", parse_bool_key, UNIT_FIELD(socket.pass_security) },
        { "Socket", "PassPacketInfo", parse_bool_key, UNIT_FIELD(socket.pass_packet_info) },
        { "Socket", "Transparent", parse_bool_key, UNIT_FIELD(socket.transparent) },
        { "Socket", "FlushPending", parse_bool_key, UNIT_FIELD(socket.flush_pending) },
        { "Socket", "Writable", parse_socket_writable, UNIT_FIELD(socket.writable) },
        { "Socket", "SocketProtocol", parse_socket_protocol, UNIT_FIELD(socket.protocol) },
        { "Socket", "TCPCongestion", parse_tcp_congestion, UNIT_FIELD(socket.tcp_congestion) },
        { "Socket", "Timestamping", parse_timestamping, UNIT_FIELD(socket.timestamping) },
        { "Socket", "Symlinks", parse_socket_symlinks, UNIT_FIELD(socket.symlinks) },
        { "Socket", "BindToDevice", parse_socket_refused, .offset = 0 },
        { "Socket", "SmackLabel", parse_socket_refused, .offset = 0 },
        { "Socket", "SmackLabelIPIn", parse_socket_refused, .offset = 0 },
        { "Socket", "SmackLabelIPOut", parse_socket_refused, .offset = 0 },
        { "Socket", "SELinuxContextFromNet", parse_socket_refused, .offset = 0 },
        { "Socket", "IPAddressAllow", parse_socket_refused, .offset = 0 },
        { "Socket", "IPAddressDeny", parse_socket_refused, .offset = 0 },
        { "Socket", "RestrictNetworkInterfaces", parse_socket_refused, .offset = 0 },
        KEY_NOT_YET("Socket", "ListenSpecial"),
        KEY_NOT_YET("Socket", "ListenNetlink"),
        KEY_NOT_YET("Socket", "ListenMessageQueue"),
        KEY_NOT_YET("Socket", "ListenUSBFunction"),
        KEY_NOT_YET("Socket", "MessageQueueMaxMessages"),
        KEY_NOT_YET("Socket", "MessageQueueMessageSize"),
        KEY_NOT_YET("Socket", "PassPIDFD"),
        KEY_NOT_YET("Socket", "AcceptFileDescriptors"),
        KEY_NOT_YET("Socket", "PassFileDescriptorsToExec"),
        KEY_NOT_YET("Socket", "TriggerLimitIntervalSec"),
        KEY_NOT_YET("Socket", "TriggerLimitBurst"),
        KEY_NOT_YET("Socket", "PollLimitIntervalSec"),
        KEY_NOT_YET("Socket", "PollLimitBurst"),
        KEY_NOT_YET("Socket", "DeferTrigger"),
        KEY_NOT_YET("Socket", "DeferTriggerMaxSec"),
};

const UnitKey *unit_key_find(const char *section, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                if (streq(section, unit_keys[i].section) && streq(name, unit_keys[i].name))
                        return &unit_keys[i];
        return NULL;
}

bool unit_section_is_known(UnitKind kind, const char *section) {
        return streq(section, "Unit") || streq(section, "Install") ||
               streq(section, kind == UNIT_KIND_SOCKET ? "Socket" : "Service");
}
