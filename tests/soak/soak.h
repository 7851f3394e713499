/*
 * ddp-soak: 60 s of mixed load, loopback only. soak_main.c runs the loop, samples VmRSS every 5 s and decides;
 * soak_mpa.c drives MPA/TCP (connection churn, tagged + untagged, a flood of
 * invalid FPDUs / Requests and of half-open connections); soak_sctp.c
 * drives one SCTP association (stream-session churn, tagged + untagged);
 * soak_sctp_flood.c floods a second SCTP listener with hostile associations;
 * soak_sctp_pin.c pins reorder rings and idles associations on a third one
 * beside a legitimate peer whose segments come out of order;
 * soak_peerflood.c spoofs very many UDP sources at the SCTP load's port;
 * soak_sctp_initflood.c floods session Initiates and never reads the
 * answers; soak_sctp_streams.c opens associations asking for 65,535
 * streams and Initiates on all it gets; soak_mpa_zerowin.c keeps MPA
 * connections that never read (zero window).
 */
#ifndef DDP_SOAK_H
#define DDP_SOAK_H

#include <stdint.h>

#include <ddp/ddp.h>

struct event_base;

/* Counters printed with every RSS sample; "bad" ones must stay 0. */
struct soak_stats {
	/* MPA */
	long mpa_opened, mpa_closed, mpa_rounds, mpa_tagged_rx;
	long mpa_client_fail; /* good clients that did not close in order */
	long garbage_conns, garbage_reaped, garbage_errors;
	long halfopen_conns, halfopen_reaped;
	long raw_stuck; /* garbage/half-open peers never closed */
	long srv_conns_live, cli_conns_live;
	/* SCTP */
	long sctp_assocs, sctp_initiated, sctp_closed, sctp_msgs, sctp_tagged;
	long sctp_errors;
	/* SCTP invalid-segment flood (soak_sctp_flood.c) */
	long sctpf_assocs, sctpf_msgs, sctpf_connfail, sctpf_stuck;
	long sctpf_vinitiates, sctpf_errors, sctpf_delivered, sctpf_vdown, sctpf_vlive;
	/* fair budgets and slots (soak_sctp_pin.c) */
	long sctpp_pin_assocs, sctpp_idle_assocs, sctpp_refused, sctpp_idle_reaped;
	long sctpp_evicted, sctpp_ended, sctpp_legit_ok, sctpp_legit_fail;
	/* forged ICMP errors (soak_icmp.c) */
	long icmp_forged;
	/* spoofed UDP sources (soak_peerflood.c) */
	long pf_sent, pf_inits, pf_peers_max, pf_unproven, pf_bad_crc, pf_limited;
	/* Initiates never answered by reading (soak_sctp_initflood.c) */
	long if_assocs, if_initiates, if_again, if_ctl_max, if_over, if_vdown;
	/* 65,535-stream associations (soak_sctp_streams.c) */
	long sf_assocs, sf_streams_max, sf_initiates, sf_accepted, sf_capped, sf_vdown;
	/* zero-window MPA peers (soak_mpa_zerowin.c) */
	long zw_conns, zw_capped, zw_keep_lost, zw_keep_live, zw_limit, zw_queued_max;
	long zw_over;
	/* payload or protocol surprises */
	long bad;
};

/* The run is two processes (soak_main.c): the victim (every server and
 * the legitimate clients) and the attacker (the hostile loads' peers), each
 * with its own event_base and usrsctp instance, on CPUs of their own. Each
 * load's start, tick and stop do the part of the process they run in;
 * SOAK_ONEPROC in the environment runs both parts in one process. */
extern int soak_victim, soak_attacker;

/* the victim's listeners, for the attacker to aim at */
enum soak_port {
	SP_MPA,
	SP_ZEROWIN,
	SP_SCTP_SRV, /* the legitimate SCTP load's two endpoints */
	SP_SCTP_CLI,
	SP_SCTPGARBAGE,
	SP_SCTPPIN,
	SP_INITFLOOD,
	SP_STREAMFLOOD,
	SP_N
};

/* Shared by both processes (MAP_SHARED, mapped before the fork): the
 * counters (each written by the side that sees the event; "bad" by both,
 * atomically) and what the attacker needs to know of the victim. */
struct soak_shared {
	struct soak_stats st;
	int port[SP_N];     /* 0 or -1: none (yet) */
	uint32_t sctpf_stag; /* the sctpgarbage victim's real STag */
	int ending;          /* the measured run is over: the ends that follow are expected */
};
extern struct soak_shared *soak_sh;
extern struct soak_stats *soak_st;
#define SOAK_BAD() __atomic_add_fetch(&soak_st->bad, 1, __ATOMIC_RELAXED)

/* Which loads run (argv[2] of ddp-soak, default all of them). */
enum {
	SOAK_GOOD = 1,     /* MPA clients: churn, tagged + untagged */
	SOAK_GARBAGE = 2,  /* peers sending invalid Requests / FPDUs */
	SOAK_HALFOPEN = 4, /* TCP connected, no MPA Request */
	SOAK_SCTP = 8,     /* SCTP stream-session churn, tagged + untagged */
	SOAK_SCTPGARBAGE = 16, /* hostile SCTP associations and segments */
	SOAK_SCTPPIN = 32, /* SCTP associations pinning reorder rings / idle */
	SOAK_REORDER = 64, /* legitimate SCTP peer whose segments come
			    * out of order (served beside sctppin) */
	SOAK_ICMP = 128,   /* forged ICMP errors about the SCTP load's
			    * datagrams (root; its own network namespace) */
	SOAK_PEERFLOOD = 256, /* spoofed UDP sources at the SCTP load's port:
			       * junk and lone INITs (root; own netns) */
	SOAK_INITFLOOD = 512, /* an SCTP peer floods session Initiates and
			       * never reads the answers */
	SOAK_STREAMFLOOD = 1024, /* associations asking for 65,535 streams,
				  * Initiating on all of them */
	SOAK_ZEROWIN = 2048,  /* MPA peers that never read (zero window) */
	SOAK_ALL = 4095,
};
extern unsigned soak_loads;

/* seconds of the measured run (argv[1]) */
extern int soak_secs;

/* soak_proc.c: map the shared part; with split, fork the attacker (the
 * child never returns from here) and pin both processes. 0 or -1. */
int soak_proc_split(int split);
/* prints this process's CPU time over wall seconds */
void soak_proc_cpu(double wall);
/* the victim's listeners are up: the attacker may start. 0 or -1. */
int soak_proc_go(void);
/* the measured run is over: set "ending", stop the attacker and serve its
 * teardown on base until it exited; 0, or 1 when it failed */
int soak_proc_end(struct event_base *base);

/* soak_main.c: every load's start, tick and stop (this process's part) */
int soak_start_loads(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_tick_loads(void);
void soak_stop_loads(void);

double soak_now(void);
uint32_t soak_rand(void);

/* 0 or a negative DDP_ERR_* */
int soak_mpa_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
/* called every tick (10 ms): top up connections, rate limited */
void soak_mpa_tick(void);
/* stop opening; free everything (after the loop ran out) */
void soak_mpa_stop(void);

int soak_sctp_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_sctp_tick(void);
void soak_sctp_stop(void);

int soak_sctp_flood_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_sctp_flood_tick(void);
void soak_sctp_flood_stop(void);

/* the SCTP load's UDP ports (server, client): 0, or -1 while it has none */
int soak_sctp_ports(int *srv_port, int *cli_port);

int soak_icmp_start(void);
void soak_icmp_tick(void);
void soak_icmp_stop(void);

int soak_sctp_pin_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_sctp_pin_tick(void);
void soak_sctp_pin_stop(void);
/* the context's log hook (counts the SCTP slot events) */
void soak_sctp_pin_log(void *user, enum ddp_log_level level, const char *msg);

/* the SCTP load's server endpoint's UDP statistics: 0, or -1 while none */
struct sctp_ll_io_stats;
int soak_sctp_srv_io(struct sctp_ll_io_stats *out);

int soak_peerflood_start(void);
void soak_peerflood_tick(void);
void soak_peerflood_stop(void);

int soak_sctp_initflood_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_sctp_initflood_tick(void);
void soak_sctp_initflood_stop(void);

int soak_sctp_streams_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_sctp_streams_tick(void);
void soak_sctp_streams_stop(void);
/* counts the stream-cap log lines */
void soak_sctp_streams_log(const char *msg);

int soak_mpa_zerowin_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd);
void soak_mpa_zerowin_tick(void);
void soak_mpa_zerowin_stop(void);
/* counts the MPA connection-cap log lines */
void soak_mpa_zerowin_log(const char *msg);

#endif
