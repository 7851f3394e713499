/* ddp-perf: the control connection of the raw baselines (tcp, usrsctp,
 * usrsctp-stock, udp) between a client and a `--server` in another process
 * or on another host. The DDP drivers carry their parameters in the MPA
 * Request / SCTP Initiate instead; the raw transports have no such place.
 *
 * A client run: TCP to the server's ADDR:PORT, a hello with the run's
 * parameters; the server sets up its data side and answers with the data
 * port (UDP for usrsctp and udp; tcp's data connections come to the same
 * TCP port with a hello of their own). At the end the client sends STOP
 * and the server answers with what it received: the row's rate is counted
 * at the receiver. */
#ifndef DDP_PERF_CTL_H
#define DDP_PERF_CTL_H

#include "bench.h"

/* Client side. */
struct ctl_client {
	int fd;
	uint32_t run;
	int data_port;
};

/* Connect, send the hello, wait (10 s at most) for the server's answer.
 * 0, or -1 with r failed. */
int ctl_connect(const struct bench_params *p, struct ctl_client *c, struct bench_result *r);
/* tcp: a data connection (blocking connect, then the hello); fd or -1. */
int ctl_data_conn(const struct bench_params *p, const struct ctl_client *c, int index,
		  struct bench_result *r);
/* Send STOP and read the server's count into r->bytes / r->msgs. */
int ctl_finish(struct ctl_client *c, struct bench_result *r);
void ctl_close(struct ctl_client *c);

/* Server side: one client run at a time. */
struct ctl_run {
	struct bench_params p;	/* llp, mode, size, streams of the client run;
				 * addr: where the server listens */
	struct bench_result r;	/* what the data side received */
	uint32_t run;
};

struct ctl_server_ops {
	/* set up the data side; *data_port: its (UDP) port, 0 for tcp */
	int (*start)(void *drv, struct ctl_run *run, int *data_port);
	/* a data connection of the current run (tcp; the driver owns fd) */
	void (*data_conn)(void *drv, int fd, int index);
	/* stop receiving and free the data side; counts stay in run->r */
	void (*stop)(void *drv);
};

/* Serve client runs of p->llp on p->addr until SIGINT/SIGTERM. */
int ctl_serve(struct event_base *base, const struct bench_params *p,
	      const struct ctl_server_ops *ops, void *drv, struct bench_result *r);

#endif
