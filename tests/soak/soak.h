/*
 * ddp-soak: 60 s of mixed load on one event loop, loopback only (issue 6
 * item 5). soak_main.c runs the loop, samples VmRSS every 5 s and decides;
 * soak_mpa.c drives MPA/TCP (connection churn, tagged + untagged, a flood of
 * invalid FPDUs / Requests and of half-open connections); soak_sctp.c
 * drives one SCTP association (stream-session churn, tagged + untagged);
 * soak_sctp_flood.c floods a second SCTP listener with hostile associations;
 * soak_sctp_pin.c pins reorder rings and idles associations on a third one
 * beside a legitimate peer whose segments come out of order (issue 15).
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
	/* payload or protocol surprises */
	long bad;
};

extern struct soak_stats soak_st;

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
	SOAK_ALL = 255,
};
extern unsigned soak_loads;

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

#endif
