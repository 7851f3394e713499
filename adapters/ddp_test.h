/*
 * libddp's test and benchmark hooks: the one internal header that the
 * programs of demos/ and tools/ may include besides the installed
 * <ddp/NAME.h> (scripts/check-layering.sh enforces it); the test suite uses it
 * too. Each hook reaches under a public handle or builds something the
 * public API does not offer, for a test that needs it or for a benchmark
 * baseline; none belongs in an application.
 *
 * Not installed (only include/ddp/ is), and its symbols stay local in the
 * installed libraries: their version scripts and archives keep only the
 * ddp_* names of the public headers global (mk/install.mk;
 * tests/programs/test_symbols.sh checks it). A program reaches these hooks
 * by linking the build tree's static libraries (build/lib/libddp_*.a), as
 * the Makefile links every demo, tool and test.
 *
 * The raw usrsctp baseline of ddp-perf drives the low-level SCTP port
 * (sctp/usrsctp/sctp_ll.h, included here) directly.
 */
#ifndef DDP_TEST_H
#define DDP_TEST_H

#include <stdint.h>

#include <ddp/sctp.h>

#include "common/heap_trim.h"
#include "sctp/udp/sctp_udp_filter.h"
#include "sctp/usrsctp/sctp_ll.h"

struct event_base;

/* ---------------------------------------------- SCTP over UDP */

/* Path MTU probing timers of every UDP socket in the process, in ms
 * (RFC 8899 §5.1.1 PROBE_TIMER, PMTU_RAISE_TIMER, CONFIRMATION_TIMER;
 * 0: the default). Set before the associations start. */
void sctp_udp_plpmtud_set_timers_for_test(uint32_t probe, uint32_t raise, uint32_t confirm);

/* ---------------------------------------------- DDP/SCTP (sctp_ddp.c) */

/* The low-level endpoint / association under a public handle. */
sctp_ll_ep *sctp_ddp_ep_ll(ddp_sctp_ep *ep);
sctp_ll_assoc *sctp_ddp_assoc_ll(ddp_sctp_assoc *a);
/* Name of the stream's session state (sctp_sst_name). */
const char *sctp_ddp_stream_state(const ddp_sctp_assoc *a, uint32_t stream);
/* The low-level endpoint settings a ddp_sctp_ep_new(cfg) uses: ddp-perf's
 * tuned raw usrsctp baseline runs with exactly these. */
void sctp_ddp_ll_config(const ddp_sctp_config *cfg, sctp_ll_config *lc);
/* ddp_sctp_ep_new() for an endpoint that behaves like a plain SCTP one,
 * neither sending nor requiring the DDP Adaptation Layer Indication
 * (RFC 5043 §11.1), so a test can show that a DDP endpoint refuses it.
 * Ownership and errors: those of ddp_sctp_ep_new (DDP_ERR_INVAL,
 * DDP_ERR_NOMEM, DDP_ERR_SYS); free with ddp_sctp_ep_free. */
int sctp_ddp_ep_new_no_adaptation(struct event_base *base, const ddp_sctp_config *cfg,
                                  ddp_sctp_ep **out);

/* ------------------------------------- the usrsctp glue (sctp/usrsctp/) */

/* sctp_ll_ep_new() for ddp-perf's "usrsctp-stock" baseline: usrsctp as it
 * comes. Only cfg's addr, port, nstreams and path_mtu are used (the path
 * MTU is the IP path, not tuning); none of libddp's settings are made (no
 * NODELAY, send or receive buffer, heartbeat, RTO or fragmentation option,
 * no receive-buffer autotuning, usrsctp's default congestion control), and
 * usrsctp's own SACK delay (200 ms, every 2nd packet) and RTO (1 s min,
 * 3 s initial, 60 s max) replace the process-wide values libddp sets.
 * Ownership and errors: those of sctp_ll_ep_new; free with
 * sctp_ll_ep_free. */
int sctp_ll_ep_new_stock(struct event_base *base, const sctp_ll_config *cfg, sctp_ll_ep **out);
/* Datagram fault injection: every SCTP packet the endpoint receives
 * passes rx first (sctp/udp/sctp_udp_filter.h); NULL: none. */
typedef sctp_udp_filter sctp_ll_filter;
void sctp_ll_set_filter(sctp_ll_ep *ep, sctp_ll_filter rx, void *user);
/* Switch UDP GSO / GRO off (0) or leave as available (1). */
void sctp_ll_set_offload(sctp_ll_ep *ep, int gso, int gro);
/* The peer's path MTU drops to mtu (as a verified ICMP would report it). */
void sctp_ll_assoc_mtu_drop(sctp_ll_assoc *a, uint32_t mtu);
/* addr:port becomes a peer of ep without an association (as one whose
 * COOKIE ECHO was answered). 0 or DDP_ERR_NOMEM / DDP_ERR_INVAL. */
int sctp_ll_ep_add_peer(sctp_ll_ep *ep, const char *addr, int port);
/* Force the copying send path (1) or not (0), process-wide. */
void sctp_ll_test_force_copy(int on);
/* Receive staging areas (one per association that reads small segments
 * whole; given back when it goes quiet) alive in this process now, and the
 * most alive at once: what they cost, for ddp-scale. */
void sctp_ll_rx_areas(long *now, long *peak);

/* ------------------------------------------------ MPA (mpa_readahead.c) */

/* Read-ahead rings of our own (lazy ones) alive in this process now, and
 * the most alive at once since it started: what the rings cost, for
 * ddp-scale. */
void mpa_ra_rings(long *now, long *peak);

/* HEAP_TRIM_MIN (common/heap_trim.h, included above): the libraries give
 * freed heap back once their units fell by at least this many; ddp-scale
 * --check expects the return only where that happened. */

#endif
