/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd's system call groups for SystemCallFilter=, as systemd 252 documents them
 * (`systemd-analyze syscall-filter`): each a name, what it is for, and its members, system
 * call names or "@group" references. Names that do not exist on the running architecture are
 * skipped by the filter builder. Generated from that listing, in its order. */
#include "syscall-groups.h"

#include <string.h>

static const char *const g_default[] = {
        "arch_prctl", "brk", "cacheflush", "clock_getres", "clock_getres_time64", "clock_gettime",
        "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "execve", "exit", "exit_group",
        "futex", "futex_time64", "futex_waitv", "get_robust_list", "get_thread_area", "getegid",
        "getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups", "getgroups32", "getpgid",
        "getpgrp", "getpid", "getppid", "getrandom", "getresgid", "getresgid32", "getresuid",
        "getresuid32", "getrlimit", "getsid", "gettid", "gettimeofday", "getuid", "getuid32", "membarrier",
        "mmap", "mmap2", "mprotect", "munmap", "nanosleep", "pause", "prlimit64", "restart_syscall",
        "riscv_flush_icache", "riscv_hwprobe", "rseq", "rt_sigreturn", "sched_getaffinity", "sched_yield",
        "set_robust_list", "set_thread_area", "set_tid_address", "set_tls", "sigreturn", "time",
        "ugetrlimit", "uretprobe", NULL,
};
static const char *const g_aio[] = {
        "io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "io_pgetevents_time64", "io_setup",
        "io_submit", "io_uring_enter", "io_uring_register", "io_uring_setup", NULL,
};
static const char *const g_basic_io[] = {
        "_llseek", "close", "close_range", "dup", "dup2", "dup3", "lseek", "pread64", "preadv", "preadv2",
        "pwrite64", "pwritev", "pwritev2", "read", "readv", "write", "writev", NULL,
};
static const char *const g_chown[] = {
        "chown", "chown32", "fchown", "fchown32", "fchownat", "lchown", "lchown32", NULL,
};
static const char *const g_clock[] = {
        "adjtimex", "clock_adjtime", "clock_adjtime64", "clock_settime", "clock_settime64", "settimeofday", NULL,
};
static const char *const g_cpu_emulation[] = {
        "modify_ldt", "subpage_prot", "switch_endian", "vm86", "vm86old", NULL,
};
static const char *const g_debug[] = {
        "lookup_dcookie", "perf_event_open", "pidfd_getfd", "ptrace", "rtas", "s390_runtime_instr",
        "sys_debug_setcontext", NULL,
};
static const char *const g_file_system[] = {
        "access", "chdir", "chmod", "close", "creat", "faccessat", "faccessat2", "fallocate", "fchdir",
        "fchmod", "fchmodat", "fchmodat2", "fcntl", "fcntl64", "fgetxattr", "flistxattr", "fremovexattr",
        "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "ftruncate", "ftruncate64",
        "futimesat", "getcwd", "getdents", "getdents64", "getxattr", "inotify_add_watch", "inotify_init",
        "inotify_init1", "inotify_rm_watch", "lgetxattr", "link", "linkat", "listxattr", "llistxattr",
        "lremovexattr", "lsetxattr", "lstat", "lstat64", "mkdir", "mkdirat", "mknod", "mknodat",
        "newfstatat", "oldfstat", "oldlstat", "oldstat", "open", "openat", "openat2", "readlink",
        "readlinkat", "removexattr", "rename", "renameat", "renameat2", "rmdir", "setxattr", "stat",
        "stat64", "statfs", "statfs64", "statx", "symlink", "symlinkat", "truncate", "truncate64",
        "unlink", "unlinkat", "utime", "utimensat", "utimensat_time64", "utimes", NULL,
};
static const char *const g_io_event[] = {
        "_newselect", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait",
        "epoll_pwait2", "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "poll", "ppoll",
        "ppoll_time64", "pselect6", "pselect6_time64", "select", NULL,
};
static const char *const g_ipc[] = {
        "ipc", "memfd_create", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive",
        "mq_timedreceive_time64", "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "msgctl", "msgget",
        "msgrcv", "msgsnd", "pipe", "pipe2", "process_madvise", "process_vm_readv", "process_vm_writev",
        "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "shmat", "shmctl", "shmdt",
        "shmget", NULL,
};
static const char *const g_keyring[] = {
        "add_key", "keyctl", "request_key", NULL,
};
static const char *const g_memlock[] = {
        "mlock", "mlock2", "mlockall", "munlock", "munlockall", NULL,
};
static const char *const g_module[] = {
        "delete_module", "finit_module", "init_module", NULL,
};
static const char *const g_mount[] = {
        "chroot", "fsconfig", "fsmount", "fsopen", "fspick", "mount", "mount_setattr", "move_mount",
        "open_tree", "pivot_root", "umount", "umount2", NULL,
};
static const char *const g_network_io[] = {
        "accept", "accept4", "bind", "connect", "getpeername", "getsockname", "getsockopt", "listen",
        "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg", "send", "sendmmsg", "sendmsg",
        "sendto", "setsockopt", "shutdown", "socket", "socketcall", "socketpair", NULL,
};
static const char *const g_obsolete[] = {
        "_sysctl", "afs_syscall", "bdflush", "break", "create_module", "ftime", "get_kernel_syms",
        "getpmsg", "gtty", "idle", "lock", "mpx", "prof", "profil", "putpmsg", "query_module", "security",
        "sgetmask", "ssetmask", "stime", "stty", "sysfs", "tuxcall", "ulimit", "uselib", "ustat",
        "vserver", NULL,
};
static const char *const g_pkey[] = {
        "pkey_alloc", "pkey_free", "pkey_mprotect", NULL,
};
static const char *const g_privileged[] = {
        "@chown", "@clock", "@module", "@raw-io", "@reboot", "@swap", "_sysctl", "acct", "bpf", "capset",
        "chroot", "fanotify_init", "fanotify_mark", "nfsservctl", "open_by_handle_at", "pivot_root",
        "quotactl", "quotactl_fd", "setdomainname", "setfsuid", "setfsuid32", "setgroups", "setgroups32",
        "sethostname", "setresuid", "setresuid32", "setreuid", "setreuid32", "setuid", "setuid32",
        "vhangup", NULL,
};
static const char *const g_process[] = {
        "capget", "clone", "clone3", "execveat", "fork", "getrusage", "kill", "pidfd_open",
        "pidfd_send_signal", "prctl", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "setns", "swapcontext",
        "tgkill", "times", "tkill", "unshare", "vfork", "wait4", "waitid", "waitpid", NULL,
};
static const char *const g_raw_io[] = {
        "ioperm", "iopl", "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
        "s390_pci_mmio_write", NULL,
};
static const char *const g_reboot[] = {
        "kexec_file_load", "kexec_load", "reboot", NULL,
};
static const char *const g_resources[] = {
        "ioprio_set", "mbind", "migrate_pages", "move_pages", "nice", "sched_setaffinity", "sched_setattr",
        "sched_setparam", "sched_setscheduler", "set_mempolicy", "set_mempolicy_home_node", "setpriority",
        "setrlimit", NULL,
};
static const char *const g_setuid[] = {
        "setgid", "setgid32", "setgroups", "setgroups32", "setregid", "setregid32", "setresgid",
        "setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32", "setuid", "setuid32", NULL,
};
static const char *const g_signal[] = {
        "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigsuspend", "rt_sigtimedwait",
        "rt_sigtimedwait_time64", "sigaction", "sigaltstack", "signal", "signalfd", "signalfd4",
        "sigpending", "sigprocmask", "sigsuspend", NULL,
};
static const char *const g_swap[] = {
        "swapoff", "swapon", NULL,
};
static const char *const g_sync[] = {
        "fdatasync", "fsync", "msync", "sync", "sync_file_range", "sync_file_range2", "syncfs", NULL,
};
static const char *const g_system_service[] = {
        "@aio", "@basic-io", "@chown", "@default", "@file-system", "@io-event", "@ipc", "@keyring",
        "@memlock", "@network-io", "@process", "@resources", "@setuid", "@signal", "@sync", "@timer",
        "arm_fadvise64_64", "capget", "capset", "copy_file_range", "fadvise64", "fadvise64_64", "flock",
        "get_mempolicy", "getcpu", "getpriority", "ioctl", "ioprio_get", "kcmp", "madvise", "mremap",
        "name_to_handle_at", "oldolduname", "olduname", "personality", "readahead", "readdir",
        "remap_file_pages", "sched_get_priority_max", "sched_get_priority_min", "sched_getattr",
        "sched_getparam", "sched_getscheduler", "sched_rr_get_interval", "sched_rr_get_interval_time64",
        "sched_yield", "sendfile", "sendfile64", "setfsgid", "setfsgid32", "setfsuid", "setfsuid32",
        "setpgid", "setsid", "splice", "sysinfo", "tee", "umask", "uname", "userfaultfd", "vmsplice", NULL,
};
static const char *const g_timer[] = {
        "alarm", "getitimer", "setitimer", "timer_create", "timer_delete", "timer_getoverrun",
        "timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64", "timerfd_create",
        "timerfd_gettime", "timerfd_gettime64", "timerfd_settime", "timerfd_settime64", "times", NULL,
};
static const char *const g_known[] = {
        "@obsolete", "_llseek", "_newselect", "accept", "accept4", "access", "acct", "add_key", "adjtimex",
        "alarm", "arc_gettls", "arc_settls", "arc_usr_cmpxchg", "arch_prctl", "arm_fadvise64_64",
        "atomic_barrier", "atomic_cmpxchg_32", "bind", "bpf", "brk", "cachectl", "cacheflush", "capget",
        "capset", "chdir", "chmod", "chown", "chown32", "chroot", "clock_adjtime", "clock_adjtime64",
        "clock_getres", "clock_getres_time64", "clock_gettime", "clock_gettime64", "clock_nanosleep",
        "clock_nanosleep_time64", "clock_settime", "clock_settime64", "clone", "clone3", "close",
        "close_range", "connect", "copy_file_range", "creat", "delete_module", "dipc", "dup", "dup2",
        "dup3", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait",
        "epoll_pwait2", "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "exec_with_loader", "execv",
        "execve", "execveat", "exit", "exit_group", "faccessat", "faccessat2", "fadvise64", "fadvise64_64",
        "fallocate", "fanotify_init", "fanotify_mark", "fchdir", "fchmod", "fchmodat", "fchmodat2",
        "fchown", "fchown32", "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr", "finit_module",
        "flistxattr", "flock", "fork", "fremovexattr", "fsconfig", "fsetxattr", "fsmount", "fsopen",
        "fspick", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate",
        "ftruncate64", "futex", "futex_requeue", "futex_time64", "futex_wait", "futex_waitv", "futex_wake",
        "futimesat", "get_mempolicy", "get_robust_list", "get_thread_area", "getcpu", "getcwd", "getdents",
        "getdents64", "getdomainname", "getdtablesize", "getegid", "getegid32", "geteuid", "geteuid32",
        "getgid", "getgid32", "getgroups", "getgroups32", "gethostname", "getitimer", "getpagesize",
        "getpeername", "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getresgid",
        "getresgid32", "getresuid", "getresuid32", "getrlimit", "getrusage", "getsid", "getsockname",
        "getsockopt", "gettid", "gettimeofday", "getuid", "getuid32", "getxattr", "getxgid", "getxpid",
        "getxuid", "init_module", "inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch",
        "io_cancel", "io_destroy", "io_getevents", "io_pgetevents", "io_pgetevents_time64", "io_setup",
        "io_submit", "io_uring_enter", "io_uring_register", "io_uring_setup", "ioctl", "ioperm", "iopl",
        "ioprio_get", "ioprio_set", "ipc", "kcmp", "kern_features", "kexec_file_load", "kexec_load",
        "keyctl", "kill", "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self",
        "lchown", "lchown32", "lgetxattr", "link", "linkat", "listen", "listxattr", "llistxattr",
        "lookup_dcookie", "lremovexattr", "lseek", "lsetxattr", "lstat", "lstat64", "madvise",
        "map_shadow_stack", "mbind", "membarrier", "memfd_create", "memfd_secret", "memory_ordering",
        "migrate_pages", "mincore", "mkdir", "mkdirat", "mknod", "mknodat", "mlock", "mlock2", "mlockall",
        "mmap", "mmap2", "modify_ldt", "mount", "mount_setattr", "move_mount", "move_pages", "mprotect",
        "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64",
        "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap", "msgctl", "msgget", "msgrcv",
        "msgsnd", "msync", "multiplexer", "munlock", "munlockall", "munmap", "name_to_handle_at",
        "nanosleep", "newfstatat", "nice", "old_adjtimex", "oldfstat", "oldlstat", "oldolduname",
        "oldstat", "oldumount", "olduname", "open", "open_by_handle_at", "open_tree", "openat", "openat2",
        "or1k_atomic", "osf_fstat", "osf_fstatfs", "osf_fstatfs64", "osf_getdirentries",
        "osf_getdomainname", "osf_getitimer", "osf_getrusage", "osf_getsysinfo", "osf_gettimeofday",
        "osf_lstat", "osf_mount", "osf_proplist_syscall", "osf_select", "osf_set_program_attributes",
        "osf_setitimer", "osf_setsysinfo", "osf_settimeofday", "osf_shmat", "osf_sigprocmask",
        "osf_sigstack", "osf_stat", "osf_statfs", "osf_statfs64", "osf_swapon", "osf_syscall",
        "osf_sysinfo", "osf_usleep_thread", "osf_utimes", "osf_utsname", "osf_wait4", "pause",
        "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "perf_event_open", "perfctr",
        "personality", "pidfd_getfd", "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pivot_root",
        "pkey_alloc", "pkey_free", "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64",
        "preadv", "preadv2", "prlimit64", "process_madvise", "process_mrelease", "process_vm_readv",
        "process_vm_writev", "pselect6", "pselect6_time64", "ptrace", "pwrite64", "pwritev", "pwritev2",
        "quotactl", "quotactl_fd", "read", "readahead", "readdir", "readlink", "readlinkat", "readv",
        "reboot", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg", "remap_file_pages",
        "removexattr", "rename", "renameat", "renameat2", "request_key", "restart_syscall",
        "riscv_flush_icache", "riscv_hwprobe", "rmdir", "rseq", "rt_sigaction", "rt_sigpending",
        "rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
        "rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "rtas", "s390_guarded_storage",
        "s390_pci_mmio_read", "s390_pci_mmio_write", "s390_runtime_instr", "s390_sthyi",
        "sched_get_affinity", "sched_get_priority_max", "sched_get_priority_min", "sched_getaffinity",
        "sched_getattr", "sched_getparam", "sched_getscheduler", "sched_rr_get_interval",
        "sched_rr_get_interval_time64", "sched_set_affinity", "sched_setaffinity", "sched_setattr",
        "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp", "select", "semctl", "semget",
        "semop", "semtimedop", "semtimedop_time64", "send", "sendfile", "sendfile64", "sendmmsg",
        "sendmsg", "sendto", "set_mempolicy", "set_mempolicy_home_node", "set_robust_list",
        "set_thread_area", "set_tid_address", "setdomainname", "setfsgid", "setfsgid32", "setfsuid",
        "setfsuid32", "setgid", "setgid32", "setgroups", "setgroups32", "sethae", "sethostname",
        "setitimer", "setns", "setpgid", "setpgrp", "setpriority", "setregid", "setregid32", "setresgid",
        "setresgid32", "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "setsid",
        "setsockopt", "settimeofday", "setuid", "setuid32", "setxattr", "sgetmask", "shmat", "shmctl",
        "shmdt", "shmget", "shutdown", "sigaction", "sigaltstack", "signal", "signalfd", "signalfd4",
        "sigpending", "sigprocmask", "sigreturn", "sigsuspend", "socket", "socketcall", "socketpair",
        "splice", "spu_create", "spu_run", "ssetmask", "stat", "stat64", "statfs", "statfs64", "statx",
        "stime", "subpage_prot", "swapcontext", "swapoff", "swapon", "switch_endian", "symlink",
        "symlinkat", "sync", "sync_file_range", "sync_file_range2", "syncfs", "sys_debug_setcontext",
        "syscall", "sysfs", "sysinfo", "syslog", "sysmips", "tee", "tgkill", "time", "timer_create",
        "timer_delete", "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime",
        "timer_settime64", "timerfd", "timerfd_create", "timerfd_gettime", "timerfd_gettime64",
        "timerfd_settime", "timerfd_settime64", "times", "tkill", "truncate", "truncate64", "ugetrlimit",
        "umask", "umount", "umount2", "uname", "unlink", "unlinkat", "unshare", "userfaultfd", "ustat",
        "utime", "utimensat", "utimensat_time64", "utimes", "utrap_install", "vfork", "vhangup", "vm86",
        "vm86old", "vmsplice", "wait4", "waitid", "waitpid", "write", "writev", NULL,
};

const SyscallGroup syscall_groups[] = {
        { "@default", "System calls that are always permitted", g_default },
        { "@aio", "Asynchronous IO", g_aio },
        { "@basic-io", "Basic IO", g_basic_io },
        { "@chown", "Change ownership of files and directories", g_chown },
        { "@clock", "Change the system time", g_clock },
        { "@cpu-emulation", "System calls for CPU emulation functionality", g_cpu_emulation },
        { "@debug", "Debugging, performance monitoring and tracing functionality", g_debug },
        { "@file-system", "File system operations", g_file_system },
        { "@io-event", "Event loop system calls", g_io_event },
        { "@ipc", "SysV IPC, POSIX Message Queues or other IPC", g_ipc },
        { "@keyring", "Kernel keyring access", g_keyring },
        { "@memlock", "Memory locking control", g_memlock },
        { "@module", "Loading and unloading of kernel modules", g_module },
        { "@mount", "Mounting and unmounting of file systems", g_mount },
        { "@network-io", "Network or Unix socket IO, should not be needed if not network facing", g_network_io },
        { "@obsolete", "Unusual, obsolete or unimplemented system calls", g_obsolete },
        { "@pkey", "System calls used for memory protection keys", g_pkey },
        { "@privileged", "All system calls which need super-user capabilities", g_privileged },
        { "@process", "Process control, execution, namespacing operations", g_process },
        { "@raw-io", "Raw I/O port access", g_raw_io },
        { "@reboot", "Reboot and reboot preparation/kexec", g_reboot },
        { "@resources", "Alter resource settings", g_resources },
        { "@setuid", "Operations for changing user/group credentials", g_setuid },
        { "@signal", "Process signal handling", g_signal },
        { "@swap", "Enable/disable swap devices", g_swap },
        { "@sync", "Synchronize files and memory to storage", g_sync },
        { "@system-service", "General system service operations", g_system_service },
        { "@timer", "Schedule operations by time", g_timer },
        { "@known", "All known syscalls declared in the kernel", g_known },
        {},
};

const SyscallGroup *syscall_group_find(const char *name) {
        for (const SyscallGroup *g = syscall_groups; g->name; g++)
                if (strcmp(g->name, name) == 0)
                        return g;
        return NULL;
}
