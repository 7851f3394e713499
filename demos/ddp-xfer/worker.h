/* ddp-xfer: one worker thread that runs jobs (file reads/writes and
 * SHA-256) in the order they were submitted, off the event loop. Each
 * job's completion runs on the loop thread, in the same order. The
 * pointers a job uses belong to the loop until its completion ran. */
#ifndef DDP_XFER_WORKER_H
#define DDP_XFER_WORKER_H

struct event_base;

struct xf_job {
	struct xf_job *next;		  /* worker's queue: do not touch */
	int (*run)(struct xf_job *);	  /* on the worker: 0 or an errno */
	void (*done)(struct xf_job *, int rc); /* on the loop, with run's result */
};

/* Start the thread and its completion event on base, for at most
 * max_jobs jobs outstanding at a time. 0 or -1 (errno). */
int xf_worker_start(struct event_base *base, unsigned max_jobs);
/* Queue j behind every job submitted before. 0, or -1 after stop or
 * with max_jobs outstanding already (a caller's bug). */
int xf_worker_submit(struct xf_job *j);
/* Jobs submitted whose completion has not run yet. */
unsigned xf_worker_busy(void);
/* Stop: the running job finishes, queued ones are dropped, no completion
 * runs any more; joins the thread. Idempotent, safe without a start. */
void xf_worker_stop(void);

#endif
