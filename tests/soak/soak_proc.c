/* ddp-soak's two processes. A real attacker is another host: what the victim
 * must bear is the cost of handling hostile input, not of producing it. So
 * the hostile loads' peers run in a child process (its own event_base, its
 * own usrsctp instance: the fork comes before anything initialises usrsctp)
 * pinned to another CPU than the victim (servers and legitimate clients,
 * the parent). Both share one mapping (struct soak_shared): the counters,
 * the victim's ports and the "ending" flag. Pipes order the run: the
 * parent writes one octet once its listeners are up ("go") and closes its
 * end when the measured run is over ("stop"); the child's end of the
 * second pipe closes when it exits, so the parent serves the attacker's
 * teardown (ABORTs, SHUTDOWNs, closes) until then. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "soak.h"

#define ATT_ALARM_S 90 /* past the parent's stop: nothing can hang */

int soak_victim = 1, soak_attacker = 1;
struct soak_shared *soak_sh;
struct soak_stats *soak_st;

static pid_t child = -1;
static int go_wr = -1, done_rd = -1;

/* the idx-th CPU this process may run on; -1 when it has fewer than 2
 * (or SOAK_NOPIN is in the environment) */
static int pin_cpu(int idx)
{
	cpu_set_t set, one;
	int seen = 0;
	if (getenv("SOAK_NOPIN") || sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 2)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set) || seen++ != idx)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return sched_setaffinity(0, sizeof(one), &one) == 0 ? c : -1;
	}
	return -1;
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	char b;
	(void)what;
	if (read(fd, &b, 1) <= 0)
		event_base_loopbreak(arg);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	soak_tick_loads();
}

/* the child: the hostile loads' peers until the parent says stop */
static int attacker_run(int go_rd)
{
	char b;
	int rc;
	alarm(0);
	if (read(go_rd, &b, 1) != 1)
		return 2; /* the victim did not start */
	alarm(ATT_ALARM_S + (unsigned)soak_secs);
	struct event_base *base = event_base_new();
	if (!base || (rc = soak_start_loads(base, NULL, NULL)) != 0) {
		fprintf(stderr, "soak: the attacker's start failed\n");
		return 2;
	}
	struct event *tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	struct event *stop = event_new(base, go_rd, EV_READ | EV_PERSIST, on_stop, base);
	struct timeval tv = {0, 10000};
	event_add(tick, &tv);
	event_add(stop, NULL);
	event_base_dispatch(base);
	event_free(tick);
	event_free(stop);
	soak_stop_loads();
	struct timeval z = {0, 200000};
	event_base_loopexit(base, &z);
	event_base_dispatch(base);
	event_base_free(base);
	fflush(stdout);
	return 0;
}

int soak_proc_split(int split)
{
	int go[2], done[2];
	soak_sh = mmap(NULL, sizeof(*soak_sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	               -1, 0);
	if (soak_sh == MAP_FAILED)
		return -1;
	soak_st = &soak_sh->st;
	if (!split) { /* the victim alone, or with its attackers in it */
		int c = pin_cpu(0);
		printf("soak: one process (pid %d)%s%d\n", (int)getpid(), c >= 0 ? " on CPU " : ", not pinned: ", c);
		return 0;
	}
	if (pipe(go) != 0 || pipe(done) != 0)
		return -1;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		close(go[1]);
		close(done[0]);
		soak_victim = 0;
		pin_cpu(1);
		_exit(attacker_run(go[0])); /* done[1] closes with the process */
	}
	close(go[0]);
	close(done[1]);
	go_wr = go[1];
	done_rd = done[0];
	soak_attacker = 0;
	int vc = pin_cpu(0);
	printf("soak: victim pid %d%s%d, attacker pid %d on another CPU%s\n", (int)getpid(),
	       vc >= 0 ? " on CPU " : " unpinned", vc >= 0 ? vc : 0, (int)child,
	       vc >= 0 ? "" : " (fewer than 2 CPUs: not pinned)");
	return 0;
}

void soak_proc_cpu(double wall)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double u = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	double k = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	/* run time and run-queue wait of this thread (the event loop): the
	 * wait says how much the machine's other jobs took from the victim */
	unsigned long long on = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu", &on, &wait) != 2)
		on = wait = 0;
	if (f)
		fclose(f);
	printf("victim CPU: %.1f s user + %.1f s system in %.0f s: %.0f %% of one CPU; waited "
	       "%.1f s for a CPU\n",
	       u, k, wall, 100.0 * (u + k) / wall, (double)wait / 1e9);
}

int soak_proc_go(void)
{
	if (go_wr < 0)
		return 0;
	return write(go_wr, "g", 1) == 1 ? 0 : -1;
}

static void on_done(evutil_socket_t fd, short what, void *arg)
{
	on_stop(fd, what, arg);
}

int soak_proc_end(struct event_base *base)
{
	int status;
	__atomic_store_n(&soak_sh->ending, 1, __ATOMIC_RELEASE);
	if (child < 0)
		return 0;
	close(go_wr);
	go_wr = -1;
	/* serve the attacker's teardown until it exited (20 s at most) */
	struct event *done = event_new(base, done_rd, EV_READ | EV_PERSIST, on_done, base);
	struct timeval lim = {20, 0};
	event_add(done, NULL);
	event_base_loopexit(base, &lim);
	event_base_dispatch(base);
	event_free(done);
	close(done_rd);
	done_rd = -1;
	struct rusage ru;
	pid_t w;
	while ((w = wait4(child, &status, WNOHANG, &ru)) < 0 && errno == EINTR)
		;
	if (w == 0) {
		printf("FAIL: the attacker process did not end in 20 s\n");
		kill(child, SIGKILL);
		while (wait4(child, &status, 0, &ru) < 0 && errno == EINTR)
			;
	}
	printf("attacker CPU: %.1f s user + %.1f s system\n",
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	child = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	printf("FAIL: the attacker process ended with %s %d\n",
	       WIFEXITED(status) ? "status" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 1;
}
