/* Run an event loop until something the test watches happens, or a time
 * runs out (integration tests). Not linked into the libFuzzer builds. */
#ifndef DDP_TEST_LOOP_WAIT_H
#define DDP_TEST_LOOP_WAIT_H

#include <stdint.h>

struct event_base;

/* Run base in 5 ms slices until *flag is nonzero or secs passed. Returns
 * *flag. */
int loop_wait_flag(struct event_base *base, const int *flag, double secs);
/* The same until *n reaches want. Returns whether it did. */
int loop_wait_count(struct event_base *base, const uint64_t *n, uint64_t want, double secs);

#endif
