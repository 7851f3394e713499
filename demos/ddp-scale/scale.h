/* ddp-scale: resident memory of many connections that all move data.
 *
 * main.c runs, for each LLP, a server and a client as two processes of
 * their own (fork), so each side's VmRSS is its own, and walks them
 * through the phases below over a socketpair each; the children answer a
 * command with a struct scale_rep once it is done (side.c).
 *
 *   before  the side is set up (event loop, context, listener, the
 *           application's buffers touched), no connection yet
 *   open    every connection (SCTP: every stream session) up
 *   moving  every connection sends a message of `size` octets every
 *           `interval_ms`, round-robin, and gets it back (the server
 *           echoes); measured after `move_s` of that
 *   quiet   sending stopped `quiet_s` ago
 *   closed  every connection closed and freed
 */
#ifndef DDP_SCALE_H
#define DDP_SCALE_H

#include <stdint.h>

struct event_base;

struct scale_opts {
	unsigned mpa_conns;    /* MPA connections (0: skip MPA) */
	unsigned sctp_assocs;  /* SCTP associations (0: skip SCTP) */
	unsigned sctp_streams; /* DDP stream sessions per association */
	unsigned size;	       /* message octets */
	unsigned interval_ms;  /* each connection sends one message this often */
	unsigned move_s;       /* moving before the "moving" reading */
	unsigned quiet_s;      /* quiet before the "quiet" reading */
	double max_kib;	       /* --check: largest RSS per connection (moving) */
	int check;
};

/* The answer to every command. */
struct scale_rep {
	int port;	     /* server: its port (ready) */
	int failed;	     /* the command did not complete (timeout, error) */
	long rss_kib;	     /* VmRSS */
	long heap_kib;	     /* malloc's blocks in use (mallinfo2), or -1 */
	long conns;	     /* connections up (SCTP: associations) */
	long streams;	     /* SCTP: stream sessions open */
	long gone;	     /* connections ended */
	long rings_now;	     /* MPA receive rings or SCTP staging areas alive
			      * now (library count) */
	long rings_peak;     /* and the most at once so far */
	uint64_t msgs_rx;    /* messages received so far */
	uint64_t msgs_tx;    /* messages sent so far */
	long errors;	     /* errors seen (connection failures, bad sends) */
};

/* Commands from main.c to a child (one octet, then for 'O' an int port). */
enum {
	CMD_OPEN = 'O',	 /* client: open every connection to the port */
	CMD_MOVE = 'M',	 /* client: start sending */
	CMD_REPORT = 'R',
	CMD_STOP = 'S',	 /* client: stop sending, wait for the echoes */
	CMD_CLOSE = 'C', /* client: close all; server: wait until all gone */
	CMD_EXIT = 'X',
};

struct side;

/* What an LLP's server or client does; side.c drives it. */
struct side_ops {
	/* set up; server: listen and return the port (> 0) */
	int (*init)(struct side *sd);
	/* start command c (arg: CMD_OPEN's port); 0 or -1 */
	int (*start)(struct side *sd, int c, int arg);
	/* 1 when command c is done (its answer may go) */
	int (*done)(struct side *sd, int c);
	/* every tick (10 ms): send what is due */
	void (*tick)(struct side *sd);
	/* fill the counters of the answer */
	void (*fill)(struct side *sd, struct scale_rep *r);
};

struct side {
	const struct scale_opts *o;
	const struct side_ops *ops;
	struct event_base *base;
	void *llp;	   /* the LLP's state */
	int server;
	int fd;		   /* to main.c */
	int pending;	   /* command being carried out, or 0 */
	uint64_t since_ms; /* when it started */
};

/* The child: runs the side until CMD_EXIT; returns the exit status. */
int side_main(const struct scale_opts *o, const struct side_ops *ops, int server, int fd);
long scale_rss_kib(void);
/* What malloc has handed out and not got back, KiB (glibc), or -1. */
long scale_heap_kib(void);
uint64_t scale_now_ms(void);
/* Messages due in this tick: interval_ms per connection over n of them,
 * *acc carries the fraction. */
unsigned scale_due(const struct scale_opts *o, unsigned n, uint64_t *last_ms, double *acc);

extern const struct side_ops scale_mpa_server, scale_mpa_client;
extern const struct side_ops scale_sctp_server, scale_sctp_client;

#endif
