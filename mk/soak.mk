# Soak and scale. Included by the top Makefile.
#
#   make soak [SOAK_SECONDS=60]   build tests/soak/*.c into $(BUILD)/soak/ddp-soak
#                                 and run it twice, SOAK_SECONDS each: the
#                                 legitimate loads alone (MPA and SCTP churn,
#                                 an SCTP peer whose segments come out of
#                                 order), then the same next to the hostile
#                                 mix (invalid FPDUs, half-open TCP, invalid
#                                 SCTP segments, SCTP associations pinning
#                                 reorder rings or idling, forged ICMP errors
#                                 and spoofed-source floods at the legitimate
#                                 association's port (as root, in a network
#                                 namespace of its own), an SCTP peer that
#                                 floods Initiates and never reads, 65,535-
#                                 stream associations, MPA peers that never
#                                 read); each prints its legitimate rates.
#                                 The hostile loads' peers run in a second
#                                 process pinned to another CPU than the
#                                 victim (servers + legitimate clients);
#                                 the second run prints each legitimate
#                                 rate's ratio to the first's (SOAK_RATES).
#                                 VmRSS sampled every 5 s; fails when RSS
#                                 after the warm-up grows > 10 %, a load
#                                 breaks its bound, or a reorder probe of the
#                                 legitimate peer is not served
#                                 (docs/reliability.md, "Soak").
#                                 Then the scale tests (10,000 MPA connections,
#                                 1,024 SCTP streams; also part of `make check`,
#                                 each takes a few seconds).

SOAK_SECONDS ?= 60
SOAK_SRC := $(sort $(wildcard tests/soak/*.c))
SOAK_BIN := $(BUILD)/soak/ddp-soak
SCALE_BIN := $(filter %/test_scale_mpa %/test_sctp_scale,$(INTEG_BIN))

$(SOAK_BIN): $(call obj,$(SOAK_SRC)) $(LIB_SUPPORT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,$(SOAK_SRC)) $(LIB_SUPPORT) $(LIBS) $(EXTLIBS)

ifeq ($(HAVE_LIBEVENT),1)
soak: $(SOAK_BIN) $(SCALE_BIN)
	SOAK_RATES=$(BUILD)/soak/rates-alone $(SOAK_BIN) $(SOAK_SECONDS) good,sctp,reorder
	SOAK_RATES=$(BUILD)/soak/rates-alone $(SOAK_BIN) $(SOAK_SECONDS) all
	@for t in $(SCALE_BIN); do CMOCKA_MESSAGE_OUTPUT=stdout $$t || exit 1; done
else
soak:
	@echo "soak: needs libevent (HAVE_LIBEVENT=0): skipped"
endif

.PHONY: soak
