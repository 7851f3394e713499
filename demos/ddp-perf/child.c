/* ddp-perf: another program run for a row (child.h). */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int child_installed(const char *file)
{
	if (strchr(file, '/'))
		return access(file, X_OK) == 0;
	const char *path = getenv("PATH");
	char buf[512];
	for (const char *s = path ? path : "/usr/bin:/bin"; *s;) {
		size_t n = strcspn(s, ":");
		if (n && n + strlen(file) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, s, file);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		s += n + (s[n] == ':');
	}
	return 0;
}

/* Every CPU there is: the kernel keeps those of this process's cpuset,
 * so a child undoes topo_pin but never leaves the CPUs it was given. */
static void unpin(void)
{
	cpu_set_t all;
	CPU_ZERO(&all);
	long n = sysconf(_SC_NPROCESSORS_CONF);
	for (long i = 0; i < (n > 0 && n < CPU_SETSIZE ? n : CPU_SETSIZE); i++)
		CPU_SET((int)i, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

pid_t child_spawn(const char *file, char *const argv[], int *out, int flags)
{
	int pfd[2] = { -1, -1 };
	if (out && pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, flags & CHILD_TERM ? SIGTERM : SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(out ? pfd[1] : nul, 1);
		/* nothing else of ours: an inherited pipe end (the port
		 * announcement) would keep its reader waiting for EOF */
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			close(fd);
		if (flags & CHILD_ALL_CPUS)
			unpin();
		execvp(file, argv);
		_exit(127);
	}
	int err = errno;
	if (!out)
		return pid;
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		errno = err;
		return -1;
	}
	fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
	*out = pfd[0];
	return pid;
}

size_t child_read_all(int fd, double deadline, size_t max, char **buf, int *timed_out)
{
	size_t len = 0, cap = 0;
	*buf = NULL;
	*timed_out = 0;
	for (;;) {
		double left = deadline - now_s();
		if (left <= 0) {
			*timed_out = 1;
			break;
		}
		struct pollfd pf = { fd, POLLIN, 0 };
		if (poll(&pf, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = ncap <= max ? realloc(*buf, ncap) : NULL;
			if (!nb)
				break;
			*buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, *buf + len, cap - len);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0)
			len += (size_t)n;
	}
	return len;
}

int child_reap(pid_t pid, int sig)
{
	if (pid <= 0)
		return -1;
	if (sig)
		kill(pid, sig);
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	return ws;
}
