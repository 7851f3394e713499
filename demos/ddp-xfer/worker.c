/* ddp-xfer: the worker thread. Two FIFO lists under one mutex: `todo`
 * (loop -> worker, signalled by a condition variable) and `fin` (worker
 * -> loop, signalled by an eventfd the loop watches). */
#include "worker.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct fin {
	struct xf_job *j;
	int rc;
};

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct xf_job *todo, **todo_tail;
	struct fin *fin; /* ring of completed jobs */
	unsigned fin_head, fin_len, fin_cap;
	unsigned busy;	 /* submitted, completion not run (loop only) */
	int efd, started, stop;
	struct event *ev;
} w = { .efd = -1 };

static void *worker_main(void *arg)
{
	pthread_mutex_lock(&w.mu);
	for (;;) {
		while (!w.todo && !w.stop)
			pthread_cond_wait(&w.cv, &w.mu);
		if (w.stop)
			break;
		struct xf_job *j = w.todo;
		w.todo = j->next;
		if (!w.todo)
			w.todo_tail = &w.todo;
		pthread_mutex_unlock(&w.mu);
		int rc = j->run(j);
		pthread_mutex_lock(&w.mu);
		/* fin_cap >= jobs outstanding (xf_worker_submit refuses more) */
		w.fin[(w.fin_head + w.fin_len++) % w.fin_cap] = (struct fin){ j, rc };
		uint64_t one = 1;
		if (write(w.efd, &one, sizeof(one)) < 0) {
			/* the counter cannot overflow; nothing else can fail */
		}
	}
	pthread_mutex_unlock(&w.mu);
	return NULL;
}

static void on_fin(evutil_socket_t fd, short what, void *arg)
{
	uint64_t n;
	if (read(w.efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	for (;;) {
		pthread_mutex_lock(&w.mu);
		if (!w.fin_len || w.stop) {
			pthread_mutex_unlock(&w.mu);
			return;
		}
		struct fin f = w.fin[w.fin_head];
		w.fin_head = (w.fin_head + 1) % w.fin_cap;
		w.fin_len--;
		pthread_mutex_unlock(&w.mu);
		w.busy--;
		f.j->done(f.j, f.rc); /* may submit more */
	}
}

int xf_worker_start(struct event_base *base, unsigned max_jobs)
{
	w.todo = NULL;
	w.todo_tail = &w.todo;
	w.fin_cap = max_jobs ? max_jobs : 1;
	if (!(w.fin = calloc(w.fin_cap, sizeof(*w.fin))))
		return -1;
	w.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w.efd < 0)
		return -1;
	w.ev = event_new(base, w.efd, EV_READ | EV_PERSIST, on_fin, NULL);
	if (!w.ev || event_add(w.ev, NULL) != 0)
		return -1;
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	int rc = pthread_create(&w.th, NULL, worker_main, NULL);
	if (rc) {
		errno = rc;
		return -1;
	}
	w.started = 1;
	return 0;
}

int xf_worker_submit(struct xf_job *j)
{
	if (!w.started || w.stop || w.busy >= w.fin_cap)
		return -1;
	pthread_mutex_lock(&w.mu);
	j->next = NULL;
	*w.todo_tail = j;
	w.todo_tail = &j->next;
	w.busy++;
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
	return 0;
}

unsigned xf_worker_busy(void)
{
	return w.busy;
}

void xf_worker_stop(void)
{
	if (w.started) {
		pthread_mutex_lock(&w.mu);
		w.stop = 1;
		pthread_cond_signal(&w.cv);
		pthread_mutex_unlock(&w.mu);
		pthread_join(w.th, NULL);
		pthread_mutex_destroy(&w.mu);
		pthread_cond_destroy(&w.cv);
		w.started = 0;
	}
	w.stop = 1;
	if (w.ev)
		event_free(w.ev);
	w.ev = NULL;
	if (w.efd >= 0)
		close(w.efd);
	w.efd = -1;
	free(w.fin);
	w.fin = NULL;
}
