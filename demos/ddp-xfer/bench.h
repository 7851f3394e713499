/* ddp-xfer --bench (bench.c): transfers timed against their ceilings. */
#ifndef DDP_XFER_BENCH_H
#define DDP_XFER_BENCH_H

/* argv[1] is "--bench". Exit status: 0, 1 (a run failed), 2 (usage). */
int xf_bench_main(int argc, char **argv);

#endif
