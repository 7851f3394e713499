/* ddp-perf: another program run for a row (child.c): iperf3 for the iperf3
 * row, a ddp-perf built against the packaged libusrsctp for the
 * usrsctp-system row. The program's stdout comes back on a pipe; it dies
 * with this process. */
#ifndef DDP_PERF_CHILD_H
#define DDP_PERF_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* Is file there to run (a path, or a name found on PATH)? */
int child_installed(const char *file);
/* child_spawn's flags. CHILD_ALL_CPUS: it may run on every CPU this
 * process may use before it pinned itself (a child that pins its own
 * ends), else it keeps this process's CPU. CHILD_TERM: when this process
 * ends it gets SIGTERM (a child that cleans up after itself, such as the
 * network namespaces a ddp-perf made), else SIGKILL. */
#define CHILD_ALL_CPUS 1
#define CHILD_TERM 2
/* Start file (execvp) with argv, stdin /dev/null, no descriptor of ours
 * open but its stdout: into *out (the read end, non-blocking), or
 * /dev/null when out is NULL. pid, or -1 with errno set. */
pid_t child_spawn(const char *file, char *const argv[], int *out, int flags);
/* Read fd until EOF or the deadline (now_s() time); the octets in *buf
 * (malloc'd, NULL when none), at most max of them. */
size_t child_read_all(int fd, double deadline, size_t max, char **buf, int *timed_out);
/* Send sig (0: none) to pid, then wait for it; its wait status, or -1. */
int child_reap(pid_t pid, int sig);

#endif
