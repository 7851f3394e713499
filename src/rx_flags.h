/* ddp_rx.gen_ flags, shared by rx.c (the receive path) and rx_cancel.c
 * (what stops a payload being read). */
#ifndef DDP_RX_FLAGS_H
#define DDP_RX_FLAGS_H

#define RX_REVOKED     0x1u /* destination revoked while the payload was read */
#define RX_ABORT_AFTER 0x2u /* data after graceful teardown: abort at end */
#define RX_STALE       0x4u /* stream flushed/reset while the payload was read */

#define RX_ERR_PENDING 0x8u /* report etype_/ecode_ at rx_end(ok) */

#endif
