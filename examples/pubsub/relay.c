/*
 * relay — a publish/subscribe relay over libddp's public API. N worker
 * threads, each with its own event_base and ddp_ctx, each listening for
 * MPA/TCP on MPA-PORT+i and for SCTP (over UDP) on SCTP-PORT+i (port 0:
 * any free port, printed). Clients (pubsub_client) say in their first
 * message whether they publish or subscribe, and to which topics; every
 * published message reaches every subscriber of its topic, on any worker,
 * forwarded from the buffer it arrived in. README.md has the design.
 *
 *   pubsub_relay [--workers N] [--drop-after MS] [--queue N] [HOST [MPA-PORT [SCTP-PORT]]]
 *   (defaults: 2 workers, 2000 ms, 64 messages, 127.0.0.1, ports 0 0)
 *
 * --queue: messages one stream may have queued in DDP (max_tx_queued);
 * more wait in the subscriber's backlog in the relay.
 *
 * SIGINT / SIGTERM stop it; exit status 0, 1 when it could not start, 2 on
 * bad usage.
 */
#include "relay.h"

#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <event2/event.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SCTP_MAX_STREAMS 8  /* streams an association may have */

uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	struct worker *w = user;
	if (level <= DDP_LOG_WARN)
		fprintf(stderr, "relay: worker %d: %s\n", w->id, msg);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what;
	conn_check_stalled(arg);
}

static int worker_start(struct worker *w)
{
	struct relay *r = w->r;
	ddp_ctx_config cc = {.log = on_log, .log_user = w};
	ddp_session_config ses = {.max_tx_queued = r->queue};
	ddp_mpa_config mc = {.session = ses};
	ddp_sctp_config sc = {.nstreams = SCTP_MAX_STREAMS, .session = ses};
	struct timeval every = {0, 200 * 1000};
	int mport = r->mpa_port ? r->mpa_port + w->id : 0;
	int sport = r->sctp_port ? r->sctp_port + w->id : 0;
	int rc;

	w->base = event_base_new();
	if (!w->base || ddp_ctx_new(&cc, &w->ctx) != 0 || xq_init(w) != 0)
		return -1;
	w->tick = event_new(w->base, -1, EV_PERSIST, on_tick, w);
	if (!w->tick || event_add(w->tick, &every) != 0)
		return -1;
	/* one ULP, two LLPs: only the setup call differs */
	rc = ddp_mpa_listen_on(w->base, w->ctx, r->host, mport, &mc, &relay_ulp, w, &w->mpa);
	if (rc == 0)
		rc = ddp_sctp_listen_on(w->base, w->ctx, r->host, sport, &sc, &relay_ulp, w, &w->sctp);
	if (rc != 0) {
		fprintf(stderr, "relay: worker %d: listen: %s\n", w->id, ddp_strerror(rc));
		return -1;
	}
	printf("relay: worker %d: MPA on %s:%d, SCTP on %s:%d\n", w->id, r->host,
	       ddp_listener_port(w->mpa), r->host, ddp_listener_port(w->sctp));
	fflush(stdout);
	return 0;
}

static void worker_stop(struct worker *w)
{
	conn_abort_all(w);
	event_base_loop(w->base, EVLOOP_NONBLOCK);
	ddp_listener_free(w->mpa);
	ddp_listener_free(w->sctp);
	printf("relay: worker %d: %llu messages in, %llu out, %llu subscribers dropped\n", w->id,
	       (unsigned long long)w->msgs_in, (unsigned long long)w->msgs_out,
	       (unsigned long long)w->dropped);
	fflush(stdout);
	if (w->tick)
		event_free(w->tick);
	/* other workers may still push to the inbox (xq_fini after the
	 * joins); cross-worker references may still name this worker's
	 * buffers: the context and the buffers go with the process */
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->failed = worker_start(w) != 0;
	pthread_barrier_wait(&w->r->ready);
	if (w->failed)
		return NULL;
	pthread_barrier_wait(&w->r->ready); /* every worker is listening */
	event_base_dispatch(w->base);
	worker_stop(w);
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: pubsub_relay [--workers N] [--drop-after MS] [--queue N] "
	                "[HOST [MPA-PORT [SCTP-PORT]]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct relay r = {.host = "127.0.0.1", .drop_ms = 2000, .queue = 64, .nworkers = 2};
	int i = 1, failed = 0;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--workers") == 0)
			r.nworkers = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--queue") == 0)
			r.queue = (uint32_t)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--drop-after") == 0)
			r.drop_ms = (unsigned)atoi(argv[i + 1]);
		else
			return usage();
	}
	if (argc - i > 3 || r.nworkers < 1 || r.nworkers > RELAY_MAX_WORKERS || r.drop_ms == 0 || r.queue == 0)
		return usage();
	if (argc - i > 0)
		r.host = argv[i];
	r.mpa_port = argc - i > 1 ? atoi(argv[i + 1]) : 0;
	r.sctp_port = argc - i > 2 ? atoi(argv[i + 2]) : 0;

	/* signals go to this thread only, which waits for them */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	r.w = calloc((size_t)r.nworkers, sizeof(*r.w));
	if (!r.w)
		return 1;
	pthread_barrier_init(&r.ready, NULL, (unsigned)r.nworkers + 1);
	for (int k = 0; k < r.nworkers; k++) {
		r.w[k].id = k;
		r.w[k].r = &r;
		r.w[k].efd = -1;
		if (pthread_create(&r.w[k].thread, NULL, worker_main, &r.w[k]) != 0)
			return 1;
	}
	pthread_barrier_wait(&r.ready);
	for (int k = 0; k < r.nworkers; k++)
		failed |= r.w[k].failed;
	if (failed) {
		fprintf(stderr, "relay: could not start\n");
		exit(1); /* the workers that did start go with the process */
	}
	printf("relay: %d workers ready, pid %ld\n", r.nworkers, (long)getpid());
	fflush(stdout);
	pthread_barrier_wait(&r.ready);

	int sig;
	sigwait(&sigs, &sig);
	for (int k = 0; k < r.nworkers; k++) {
		atomic_store(&r.w[k].stop, 1);
		xq_wake(&r.w[k]);
	}
	for (int k = 0; k < r.nworkers; k++)
		pthread_join(r.w[k].thread, NULL);
	for (int k = 0; k < r.nworkers; k++)
		xq_fini(&r.w[k]);
	return 0;
}
