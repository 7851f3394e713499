/* ddp-soak main: runs MPA and SCTP load for N seconds
 * (argv[1], default 60), samples VmRSS every 5 s and prints the curve.
 * argv[2] picks the loads: "all" (default) or a comma list of good,
 * garbage, halfopen, sctp, sctpgarbage, sctppin, reorder, icmp, peerflood,
 * initflood, streamflood, zerowin (e.g. "garbage" alone measures the MPA
 * flood, "sctpgarbage" the SCTP one; "good,sctp,reorder" the legitimate
 * loads alone; icmp and peerflood aim at the sctp load, which they bring
 * along). The legitimate rate (MPA rounds,
 * SCTP messages, SCTP reorder probes per second) is printed at the end.
 * Fails (exit 1) when RSS at the end (the smaller of the last two samples)
 * is more than 10 % over RSS after the warm-up (the first quarter, at least
 * 15 s), or any
 * sample more than 25 % over it (growth under 1 MiB, allocator noise on the
 * small baselines of single-load runs, always passes), when
 * a load did not make progress, or when a payload/protocol surprise was
 * counted. Loopback only; bounded by alarm(). The hostile loads' peers run
 * in a second process on another CPU (soak_proc.c); this one, the victim,
 * runs the servers and the legitimate clients, samples, and decides. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "soak.h"
#include "icmpforge.h"
#include "proc_stats.h"

#define SAMPLE_S         5
#define WARM_MIN_S       15
#define MAX_SAMPLES      256
#define GROWTH_PCT       10
#define SPIKE_PCT        25
#define GROWTH_FLOOR_KIB 1024 /* allocator noise on a small baseline */
#define SOAK_REORDER_BYTES (16u << 20)

unsigned soak_loads = SOAK_ALL;
int soak_secs;
static uint32_t rng_state = 0x12345678u;

double soak_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

uint32_t soak_rand(void)
{
	/* xorshift32: deterministic load, reproducible runs */
	uint32_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rng_state = x;
	return x;
}

static struct event_base *base;
static double t_start, t_end, t_next_sample;
static long samples[MAX_SAMPLES];
static int nsamples;

static void print_sample(double t, long rss)
{
	const struct soak_stats *s = soak_st;
	printf("t=%3.0fs rss=%6ld KiB | mpa open %ld closed %ld rounds %ld "
	       "tagged %ld live %ld/%ld | garbage %ld reaped %ld errs %ld | half-open %ld "
	       "reaped %ld | sctp assoc %ld init %ld closed %ld msgs %ld tagged %ld | bad "
	       "%ld\n",
	       t, rss, s->mpa_opened, s->mpa_closed, s->mpa_rounds, s->mpa_tagged_rx,
	       s->cli_conns_live, s->srv_conns_live, s->garbage_conns, s->garbage_reaped,
	       s->garbage_errors, s->halfopen_conns, s->halfopen_reaped, s->sctp_assocs,
	       s->sctp_initiated, s->sctp_closed, s->sctp_msgs, s->sctp_tagged, s->bad);
	if (soak_loads & (SOAK_PEERFLOOD | SOAK_INITFLOOD | SOAK_STREAMFLOOD | SOAK_ZEROWIN))
		printf("        peerflood %ld peers<=%ld | initflood assoc %ld init %ld "
		       "refused %ld ctlq<=%ld | streamflood assoc %ld init %ld capped %ld | "
		       "zerowin conns %ld capped %ld keepers %ld queued<=%ld\n",
		       s->pf_sent, s->pf_peers_max, s->if_assocs, s->if_initiates, s->if_again,
		       s->if_ctl_max, s->sf_assocs, s->sf_initiates, s->sf_capped, s->zw_conns,
		       s->zw_capped, s->zw_keep_live, s->zw_queued_max);
	if (soak_loads & SOAK_SCTPGARBAGE)
		printf("        sctpgarbage assoc %ld msgs %ld | victim initiates %ld errs %ld "
		       "dlv %ld ended %ld live %ld | connfail %ld stuck %ld\n",
		       s->sctpf_assocs, s->sctpf_msgs, s->sctpf_vinitiates, s->sctpf_errors,
		       s->sctpf_delivered, s->sctpf_vdown, s->sctpf_vlive, s->sctpf_connfail,
		       s->sctpf_stuck);
	fflush(stdout);
}

void soak_tick_loads(void)
{
	soak_mpa_tick();
	soak_sctp_tick();
	soak_sctp_flood_tick();
	soak_sctp_pin_tick();
	soak_icmp_tick();
	soak_peerflood_tick();
	soak_sctp_initflood_tick();
	soak_sctp_streams_tick();
	soak_mpa_zerowin_tick();
}

void soak_stop_loads(void)
{
	soak_mpa_stop();
	soak_sctp_stop();
	soak_sctp_flood_stop();
	soak_sctp_pin_stop();
	soak_icmp_stop();
	soak_peerflood_stop();
	soak_sctp_initflood_stop();
	soak_sctp_streams_stop();
	soak_mpa_zerowin_stop();
}

int soak_start_loads(struct event_base *b, ddp_ctx *ctx, ddp_pd *pd)
{
	int rc;
	const char *what;
	if ((rc = soak_mpa_start(b, ctx, pd)) ? (what = "mpa", 1) :
	    (rc = soak_sctp_start(b, ctx, pd)) ? (what = "sctp", 1) :
	    (rc = soak_sctp_flood_start(b, ctx, pd)) ? (what = "sctpgarbage", 1) :
	    (rc = soak_sctp_pin_start(b, ctx, pd)) ? (what = "sctppin", 1) :
	    (rc = soak_icmp_start()) ? (what = "icmp", 1) :
	    (rc = soak_peerflood_start()) ? (what = "peerflood", 1) :
	    (rc = soak_sctp_initflood_start(b, ctx, pd)) ? (what = "initflood", 1) :
	    (rc = soak_sctp_streams_start(b, ctx, pd)) ? (what = "streamflood", 1) :
	    (rc = soak_mpa_zerowin_start(b, ctx, pd)) ? (what = "zerowin", 1) : 0) {
		fprintf(stderr, "soak: start of the %s load failed (%d)\n", what, rc);
		return rc;
	}
	return 0;
}

/* the legitimate counters when the measured run ended */
static long legit_mpa, legit_sctp, legit_reorder;

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	double t = soak_now();
	int s, c;
	soak_tick_loads();
	/* the legitimate SCTP load's ports, for icmp and peerflood */
	if (soak_sctp_ports(&s, &c))
		s = c = -1;
	soak_sh->port[SP_SCTP_SRV] = s;
	soak_sh->port[SP_SCTP_CLI] = c;
	if (t >= t_next_sample) {
		long r = proc_rss_kib();
		if (nsamples < MAX_SAMPLES)
			samples[nsamples++] = r;
		print_sample(t - t_start, r);
		t_next_sample += SAMPLE_S;
	}
	if (t >= t_end) {
		soak_proc_cpu(t - t_start);
		legit_mpa = soak_st->mpa_rounds;
		legit_sctp = soak_st->sctp_msgs;
		legit_reorder = soak_st->sctpp_legit_ok;
		event_base_loopbreak(base);
	}
}

/* The legitimate rates; SOAK_RATES=file in the environment: a run of the
 * legitimate loads alone writes them there, a run with hostile loads reads
 * them and prints each rate's ratio to its rate alone (one `make soak`:
 * the same machine, minutes apart). SOAK_RATIO_FLOOR=x fails the run when
 * a ratio is below x. */
static int rates(int secs)
{
	const char *file = getenv("SOAK_RATES"), *floor_s = getenv("SOAK_RATIO_FLOOR");
	int hostile = (soak_loads & ~(unsigned)(SOAK_GOOD | SOAK_SCTP | SOAK_REORDER)) != 0;
	double now[3] = {(double)legit_mpa / secs, (double)legit_sctp / secs,
	                 (double)legit_reorder / secs};
	double alone[3] = {0, 0, 0}, floor = floor_s ? atof(floor_s) : 0;
	static const char *const name[3] = {"MPA rounds/s", "SCTP messages/s",
	                                    "SCTP reorder probes/s"};
	int fail = 0;
	FILE *f;
	printf("legitimate rate: MPA %.1f rounds/s, SCTP %.1f messages/s, SCTP reorder "
	       "probes %.1f/s (loads:%s)\n",
	       now[0], now[1], now[2], hostile ? " with the hostile mix" : " legitimate only");
	if (!file)
		return 0;
	if (!hostile) {
		if ((f = fopen(file, "w"))) {
			fprintf(f, "%f %f %f\n", now[0], now[1], now[2]);
			fclose(f);
		}
		return 0;
	}
	if (!(f = fopen(file, "r")) || fscanf(f, "%lf %lf %lf", &alone[0], &alone[1], &alone[2]) != 3) {
		if (f)
			fclose(f);
		printf("soak: no rates alone in %s: no ratio\n", file);
		return 0;
	}
	fclose(f);
	printf("=== legitimate rate with the hostile mix / alone:");
	for (int i = 0; i < 3; i++) {
		if (alone[i] <= 0)
			continue;
		double r = now[i] / alone[i];
		printf(" %s %.2f (%.1f / %.1f)", name[i], r, now[i], alone[i]);
		if (floor > 0 && r < floor)
			fail = 1;
	}
	printf(" ===\n");
	if (fail)
		printf("FAIL: a legitimate rate with the mix below %.2f x its rate alone\n", floor);
	return fail;
}

static int verdict(int secs)
{
	const struct soak_stats *s = soak_st;
	int fail = 0;
	/* warm-up: the first quarter of the run, and at least WARM_MIN_S (the
	 * SCTP churn's first new association comes at 10 s: a 30 s run's first
	 * quarter would take the level before it) but never the last two
	 * samples */
	int warm = nsamples / 4;
	if (warm < WARM_MIN_S / SAMPLE_S)
		warm = WARM_MIN_S / SAMPLE_S;
	if (warm > nsamples - 2)
		warm = nsamples - 2;
	if (warm < 1)
		warm = 1;
	if (nsamples < 2) {
		printf("FAIL: only %d RSS samples\n", nsamples);
		return 1;
	}
	long ref = samples[warm - 1], peak = ref;
	for (int i = warm; i < nsamples; i++)
		if (samples[i] > peak)
			peak = samples[i];
	/* the level at the end: a leak grows monotonically, so the smaller of
	 * the last two samples shows it while one transient spike does not */
	long end = samples[nsamples - 1];
	if (nsamples - 2 >= warm && samples[nsamples - 2] < end)
		end = samples[nsamples - 2];
	double growth = 100.0 * (double)(end - ref) / (double)ref;
	double spike = 100.0 * (double)(peak - ref) / (double)ref;
	printf("RSS after warm-up (%d s): %ld KiB; at the end %ld KiB: %+.1f %% "
	       "(limit %d %%); peak %ld KiB: %+.1f %% (limit %d %%); growth "
	       "under %d KiB always passes\n",
	       warm * SAMPLE_S, ref, end, growth, GROWTH_PCT, peak, spike, SPIKE_PCT,
	       GROWTH_FLOOR_KIB);
	if (growth > GROWTH_PCT && end - ref > GROWTH_FLOOR_KIB) {
		printf("FAIL: RSS grew\n");
		fail = 1;
	}
	if (spike > SPIKE_PCT && peak - ref > GROWTH_FLOOR_KIB) {
		printf("FAIL: RSS spiked\n");
		fail = 1;
	}
#define NEED(x)                                                                                    \
	do {                                                                                       \
		if (!(x)) {                                                                        \
			printf("FAIL: no progress: %s\n", #x);                                     \
			fail = 1;                                                                  \
		}                                                                                  \
	} while (0)
	if (soak_loads & SOAK_GOOD)
		NEED(s->mpa_closed > 0 && s->mpa_rounds > 0 && s->mpa_tagged_rx > 0);
	if (soak_loads & SOAK_GARBAGE)
		NEED(s->garbage_reaped > 0 && s->garbage_errors > 0);
	if (soak_loads & SOAK_HALFOPEN)
		NEED(s->halfopen_reaped > 0);
	if (soak_loads & SOAK_SCTP)
		NEED(s->sctp_msgs > 0 && s->sctp_tagged > 0 && s->sctp_closed > 0 &&
		     s->sctp_assocs > (secs > 20 ? 1 : 0));
	if (soak_loads & SOAK_SCTPGARBAGE)
		NEED(s->sctpf_assocs > (secs > 20 ? 10 : 0) && s->sctpf_errors > 0 &&
		     s->sctpf_vdown > 0);
	if (soak_loads & SOAK_SCTPPIN)
		NEED(s->sctpp_refused > 0 && s->sctpp_idle_reaped + s->sctpp_evicted > 0);
	if (soak_loads & SOAK_REORDER)
		NEED(s->sctpp_legit_ok > 0);
	if (soak_loads & SOAK_ICMP)
		NEED(s->icmp_forged > 0);
	if (soak_loads & SOAK_PEERFLOOD)
		NEED(s->pf_sent > 0 && s->pf_unproven > 0);
	if (soak_loads & SOAK_INITFLOOD)
		NEED(s->if_assocs > 0 && s->if_again > 0 && s->if_over == 0);
	if (soak_loads & SOAK_STREAMFLOOD)
		NEED(s->sf_assocs > 0 && s->sf_capped > 0 && s->sf_streams_max > 0);
	if (soak_loads & SOAK_ZEROWIN)
		NEED(s->zw_capped > 0 && s->zw_limit > 0 && s->zw_keep_lost == 0 &&
		     s->zw_keep_live > 0 && s->zw_over == 0);
	if (s->sctpp_legit_fail) {
		printf("FAIL: %ld reorder probes of the legitimate SCTP peer not served\n",
		       s->sctpp_legit_fail);
		fail = 1;
	}
	if (soak_loads & SOAK_ICMP)
		printf("forged ICMP errors: %ld (%.0f/s)\n", s->icmp_forged,
		       (double)s->icmp_forged / secs);
	fail |= rates(secs);
	if (s->sctpf_stuck) {
		printf("FAIL: %ld hostile SCTP associations stuck (never ended, or the "
		       "victim held too many)\n",
		       s->sctpf_stuck);
		fail = 1;
	}
	if (s->bad || s->mpa_client_fail || s->raw_stuck) {
		printf("FAIL: %ld bad payloads/events, %ld failed clients, %ld "
		       "hostile peers never closed by the server\n",
		       s->bad, s->mpa_client_fail, s->raw_stuck);
		fail = 1;
	}
	printf("soak: %s (%d s)\n", fail ? "FAIL" : "PASS", secs);
	return fail;
}

/* the context's log hook: the loads that count log lines */
static void soak_log(void *user, enum ddp_log_level level, const char *msg)
{
	static int show = -1;
	if (show < 0)
		show = getenv("SOAK_LOG") != NULL;
	if (show) /* SOAK_LOG in the environment: every line to stderr */
		fprintf(stderr, "log: %s\n", msg);
	soak_sctp_pin_log(user, level, msg);
	soak_sctp_streams_log(msg);
	soak_mpa_zerowin_log(msg);
}

static unsigned parse_loads(const char *arg)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {{"all", SOAK_ALL},
	             {"good", SOAK_GOOD},
	             {"garbage", SOAK_GARBAGE},
	             {"halfopen", SOAK_HALFOPEN},
	             {"sctp", SOAK_SCTP},
	             {"sctpgarbage", SOAK_SCTPGARBAGE},
	             {"sctppin", SOAK_SCTPPIN},
	             {"reorder", SOAK_REORDER},
	             {"icmp", SOAK_ICMP},
	             {"peerflood", SOAK_PEERFLOOD},
	             {"initflood", SOAK_INITFLOOD},
	             {"streamflood", SOAK_STREAMFLOOD},
	             {"zerowin", SOAK_ZEROWIN}};
	unsigned m = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(t, names[i].name) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return 0;
		m |= names[i].bit;
	}
	return m;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	ddp_ctx *ctx;
	ddp_pd *pd;
	if (secs < 10)
		secs = 10;
	soak_secs = secs;
	if (argc > 2 && !(soak_loads = parse_loads(argv[2]))) {
		fprintf(stderr, "usage: ddp-soak [seconds] "
		                "[all|good,garbage,halfopen,sctp,sctpgarbage,sctppin,reorder,icmp,"
		                "peerflood,initflood,streamflood,zerowin]\n");
		return 2;
	}
	if (soak_loads & (SOAK_ICMP | SOAK_PEERFLOOD))
		soak_loads |= SOAK_SCTP; /* their target */
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned)secs + 60); /* nothing can hang */
	/* forged frag-needed messages lower the kernel's route MTU of the
	 * address they name: the ICMP load runs the whole soak in a network
	 * namespace of its own, before any socket is made (and before the
	 * fork: both processes are in it) */
	if ((soak_loads & (SOAK_ICMP | SOAK_PEERFLOOD)) && !icmp_own_netns()) {
		printf("soak: the icmp and peerflood loads need root (a raw socket and a network "
		       "namespace): skipped\n");
		soak_loads &= ~(unsigned)(SOAK_ICMP | SOAK_PEERFLOOD);
	}
	/* the attacker forks here, before anything made usrsctp's threads */
	int hostile = (soak_loads & ~(unsigned)(SOAK_GOOD | SOAK_SCTP | SOAK_REORDER)) != 0;
	if (soak_proc_split(hostile && !getenv("SOAK_ONEPROC"))) {
		fprintf(stderr, "soak: shared mapping or fork failed\n");
		return 2;
	}
	base = event_base_new();
	/* out-of-order memory of all sessions capped at 16 MiB (default
	 * 64 MiB): the SCTP flood and sctppin pin reorder rings on purpose,
	 * and with a cap the soak shows they cannot take more than their
	 * shares (sctppin's 3 x 32 rings alone would take 21 MiB); its
	 * headroom (1/8: 9 rings of 224 KiB) serves first rings: one per
	 * hostile association holding any (4 sctpgarbage + 3 sctppin at
	 * once) and the reorder probes' (docs/fairness.md) */
	ddp_ctx_config cc = { .max_reorder_bytes = SOAK_REORDER_BYTES, .log = soak_log };
	if (!base || ddp_ctx_new(&cc, &ctx) || ddp_pd_new(ctx, &pd)) {
		fprintf(stderr, "soak: setup failed\n");
		return 2;
	}
	int rc = soak_start_loads(base, ctx, pd);
	if (rc || soak_proc_go())
		return 2;
	struct event *tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	struct timeval tv = {0, 10000};
	event_add(tick, &tv);
	t_start = soak_now();
	t_end = t_start + secs;
	t_next_sample = t_start + SAMPLE_S;
	printf("soak: %d s on 127.0.0.1, loads:%s%s%s%s%s%s%s%s%s%s%s%s, RSS every %d s\n", secs,
	       soak_loads & SOAK_GOOD ? " mpa-churn" : "",
	       soak_loads & SOAK_GARBAGE ? " invalid-fpdu-flood" : "",
	       soak_loads & SOAK_HALFOPEN ? " half-open-flood" : "",
	       soak_loads & SOAK_SCTP ? " sctp-churn" : "",
	       soak_loads & SOAK_SCTPGARBAGE ? " sctp-invalid-flood" : "",
	       soak_loads & SOAK_SCTPPIN ? " sctp-pin-and-idle" : "",
	       soak_loads & SOAK_REORDER ? " sctp-reorder-probes" : "",
	       soak_loads & SOAK_ICMP ? " forged-icmp" : "",
	       soak_loads & SOAK_PEERFLOOD ? " spoofed-peer-flood" : "",
	       soak_loads & SOAK_INITFLOOD ? " sctp-initiate-flood" : "",
	       soak_loads & SOAK_STREAMFLOOD ? " sctp-65535-streams" : "",
	       soak_loads & SOAK_ZEROWIN ? " mpa-zero-window" : "", SAMPLE_S);
	fflush(stdout);
	event_base_dispatch(base);
	event_free(tick);
	/* the attacker stops and ends its peers while this loop serves them */
	rc = soak_proc_end(base);
	rc |= verdict(secs);
	soak_stop_loads();
	/* drain what the stops scheduled */
	struct timeval z = {0, 200000};
	event_base_loopexit(base, &z);
	event_base_dispatch(base);
	if (ddp_pd_free(pd) || ddp_ctx_free(ctx)) {
		printf("FAIL: objects left in the context after the stop\n");
		rc = 1;
	}
	event_base_free(base);
	return rc;
}
