# libddp top-level Makefile (GNU make). configure writes config.mk; when it is
# missing, `make <anything>` installs the Debian packages (scripts/
# install-deps.sh), runs autoconf and ./configure, and carries on.
#
#   make            build libraries, tests and programs
#   make check      install missing packages, build, run the suite (the
#                   tests named in tests/long.txt are left to check-long)
#   make check-long the long tests: benchmarks' program tests, runs of 10 s+
#   make demo       run the main job
#   make demo-net   the same between two network namespaces (root)
#   make scale      memory at scale: 10,000 MPA connections and 1,000 SCTP
#                   associations x 16 streams moving data (ddp-scale)
#   make fuzz       build and run every libFuzzer target for FUZZ_SECONDS each
#   make fuzz-build build every libFuzzer target (build-fuzz/fuzz/)
#   make fuzz-ci    build every target, run each for FUZZ_SECONDS; fails on a
#                   crash, leak or time-out
#   make check-sanitize   the suite under ASan+UBSan (separate build dir)
#   make check-tsan       the threaded tests under ThreadSanitizer
#   make check-valgrind   the suite under valgrind memcheck
#   make check-abi  the shared libraries against the ABI baseline (abi/)
#   make check-clang-build  compile and link everything make builds (tests,
#                   programs, corpus replayers, the soak) with clang in
#                   build-clang/; runs nothing
#   make doc        the API reference from the headers (build/doc/api.md,
#                   installed by make install)
#   make format     apply .clang-format to the library (make check checks it)

.DEFAULT_GOAL := all
# Build with every core unless the command line says how many jobs.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
BUILD ?= build
V ?= 0
ifeq ($(V),0)
Q := @
else
Q :=
endif
FUZZ_SECONDS ?= 30

ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
include config.mk
endif

config.mk: configure.ac config.mk.in
	@sh scripts/install-deps.sh
	autoconf
	./configure $(CONFIGURE_FLAGS)

configure: configure.ac
	autoconf

# ----------------------------------------------------------------- flags
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wformat=2 -Wno-unused-parameter
SAN ?= 0
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifeq ($(SAN),tsan)
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
endif
# the libFuzzer build (make fuzz-build): coverage instrumentation, no main
ifeq ($(SAN),fuzz)
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
endif
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -O2 -g -fPIC $(WARN) $(CONF_CFLAGS) $(SANFLAGS) \
              -Iinclude -Isrc -Iadapters -Irdmap -Itests/support \
              -DHAVE_ISAL=$(HAVE_ISAL) -DHAVE_USRSCTP=$(HAVE_USRSCTP) -DHAVE_LIBEVENT=$(HAVE_LIBEVENT)
LDFLAGS_ALL := $(CONF_LDFLAGS) $(SANFLAGS)

# usrsctp: built here from Debian's source package with the patch series of
# adapters/sctp/usrsctp/patches (mk/usrsctp.mk) and linked into libddp_sctp,
# or with USRSCTP_BUNDLED=0 (./configure --with-system-usrsctp) the
# packaged libusrsctp.
USRSCTP_BUNDLED ?= 0
USRSCTP_VERSION := 0.9.5.0-2
USRSCTP_TREE := $(BUILD)/usrsctp
USRSCTP_C := user_environment.c user_mbuf.c user_recv_thread.c user_socket.c \
             $(addprefix netinet/,sctp_asconf.c sctp_auth.c sctp_bsd_addr.c sctp_callout.c \
               sctp_cc_functions.c sctp_crc32.c sctp_indata.c sctp_input.c sctp_output.c \
               sctp_pcb.c sctp_peeloff.c sctp_sha1.c sctp_ss_functions.c sctp_sysctl.c \
               sctp_timer.c sctp_userspace.c sctp_usrreq.c sctputil.c) \
             netinet6/sctp6_usrreq.c
USRSCTP_OBJ :=
USRSCTP_LIBS :=
ifeq ($(HAVE_USRSCTP),1)
ifeq ($(USRSCTP_BUNDLED),1)
USRSCTP_OBJ := $(patsubst %.c,$(BUILD)/obj/usrsctp/%.o,$(USRSCTP_C))
USRSCTP_LIBS := -pthread
# DDP_USRSCTP_PATCHED: usrsctp carries our series (tests of what a patch
# changes check it only then)
CFLAGS_ALL += -I$(USRSCTP_TREE)/include -DDDP_USRSCTP_PATCHED=1
else
USRSCTP_LIBS := -lusrsctp
endif
endif

EXTLIBS := $(USRSCTP_LIBS)
ifeq ($(HAVE_LIBEVENT),1)
EXTLIBS += -levent_core -levent_extra
endif
ifeq ($(HAVE_ISAL),1)
EXTLIBS += -lisal
endif
EXTLIBS += -lm

# ----------------------------------------------------------------- sources
CORE_SRC   := $(sort $(wildcard src/*.c))
COMMON_SRC := $(sort $(wildcard adapters/common/*.c))
# One folder per LLP, one library per folder (docs/design.md, "Folders"):
# adapters/mpa/ is libddp_mpa (the RFC 5044 machine; adapters/mpa/tcp/ its
# socket and event-loop glue), adapters/sctp/ is libddp_sctp (RFC 5043;
# adapters/sctp/usrsctp/ and adapters/sctp/udp/ below it). adapters/event/
# holds the event glue both LLPs share, compiled into each library.
# Without libevent only the MPA machine is built (its unit tests and fuzzers).
EVENT_SRC  := $(sort $(wildcard adapters/event/*.c))
MPA_SRC    := $(sort $(wildcard adapters/mpa/*.c))
ifeq ($(HAVE_LIBEVENT),1)
MPA_SRC    += $(sort $(wildcard adapters/mpa/tcp/*.c)) $(EVENT_SRC)
endif
SCTP_SRC   := $(sort $(wildcard adapters/sctp/*.c adapters/sctp/usrsctp/*.c adapters/sctp/udp/*.c)) \
              $(EVENT_SRC)
RDMAP_SRC  := $(sort $(wildcard rdmap/*.c))
SUPPORT_SRC := $(sort $(wildcard tests/support/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIB_CORE   := $(BUILD)/lib/libddp.a
LIB_COMMON := $(BUILD)/lib/libddp_common.a
LIB_MPA    := $(BUILD)/lib/libddp_mpa.a
LIB_SCTP   := $(BUILD)/lib/libddp_sctp.a
LIB_RDMAP  := $(BUILD)/lib/libddp_rdmap.a
LIB_SUPPORT := $(BUILD)/lib/libddp_testsupport.a

LIBS := $(LIB_RDMAP) $(LIB_MPA) $(LIB_COMMON) $(LIB_CORE)
ifeq ($(HAVE_LIBEVENT),1)
ifeq ($(HAVE_USRSCTP),1)
LIBS := $(LIB_SCTP) $(LIBS)
endif
endif

# ----------------------------------------------------------------- tests
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
# unit tests of an adapter or program that is not built are left out
ifneq ($(HAVE_USRSCTP),1)
UNIT_SRC := $(filter-out tests/unit/test_sctp%,$(UNIT_SRC))
endif
ifneq ($(HAVE_LIBEVENT)$(HAVE_USRSCTP),11)
UNIT_SRC := $(filter-out tests/unit/test_xfer%,$(UNIT_SRC))
endif
INTEG_SRC :=
ifeq ($(HAVE_LIBEVENT),1)
INTEG_SRC := $(sort $(wildcard tests/integration/test_*.c))
ifneq ($(HAVE_USRSCTP),1)
# SCTP tests, and those that run the programs (built only with both)
INTEG_SRC := $(foreach f,$(INTEG_SRC),$(if $(findstring sctp,$(f)),,$(f)))
INTEG_SRC := $(filter-out tests/integration/test_echo_prog.c tests/integration/test_xfer%,$(INTEG_SRC))
endif
ifneq ($(HAVE_LIBCRYPTO),1)
# they run ddp-xfer, which needs libcrypto
INTEG_SRC := $(filter-out tests/integration/test_xfer%,$(INTEG_SRC))
endif
endif
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
ifneq ($(HAVE_USRSCTP),1)
FUZZ_SRC := $(filter-out tests/fuzz/fuzz_sctp%,$(FUZZ_SRC))
endif

UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
INTEG_BIN := $(patsubst tests/integration/%.c,$(BUILD)/itests/%,$(INTEG_SRC))
REPLAY_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-replay/%,$(FUZZ_SRC))
ifneq ($(HAVE_CMOCKA),1)
UNIT_BIN :=
INTEG_BIN :=
endif

# ----------------------------------------------------------------- programs
# demos/NAME.c is a one-file program; demos/NAME/*.c a multi-file one. Only
# ddp-demo builds without libevent; the others need libevent (and usrsctp
# when they include the SCTP adapter, which every other program does).
DEMO_ONE := $(sort $(wildcard demos/*.c))
DEMO_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard demos/*/*.c))))
DEMO_NAMES := $(patsubst demos/%.c,%,$(DEMO_ONE)) $(patsubst demos/%,%,$(DEMO_DIRS))
ifneq ($(HAVE_LIBEVENT)$(HAVE_USRSCTP),11)
DEMO_NAMES := $(filter ddp-demo,$(DEMO_NAMES))
endif
# ddp-xfer's SHA-256 is OpenSSL's libcrypto (EVP): no libcrypto, no ddp-xfer
ifneq ($(HAVE_LIBCRYPTO),1)
DEMO_NAMES := $(filter-out ddp-xfer,$(DEMO_NAMES))
endif
# libraries a multi-file program links beyond $(EXTLIBS)
PROG_LIBS_ddp-xfer := -lcrypto -pthread
DEMO_BIN := $(patsubst %,$(BUILD)/bin/%,$(DEMO_NAMES))
# examples/pubsub: the pub/sub relay and its client, built here against the
# public headers only (include/), as a user would build them
PUBSUB_RELAY_SRC := $(addprefix examples/pubsub/,relay.c conn.c topic.c xthread.c)
EXAMPLE_BIN :=
ifeq ($(HAVE_LIBEVENT)$(HAVE_USRSCTP),11)
EXAMPLE_BIN := $(BUILD)/bin/pubsub_relay $(BUILD)/bin/pubsub_client
endif

# ----------------------------------------------------------------- rules
all: $(LIBS) $(UNIT_BIN) $(INTEG_BIN) $(REPLAY_BIN) $(DEMO_BIN) $(EXAMPLE_BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

define lib_rule
$(1): $(call obj,$(2))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	$$(Q)$$(AR) rcs $$@ $$^
endef
$(eval $(call lib_rule,$(LIB_CORE),$(CORE_SRC)))
$(eval $(call lib_rule,$(LIB_COMMON),$(COMMON_SRC)))
$(eval $(call lib_rule,$(LIB_MPA),$(MPA_SRC)))
$(eval $(call lib_rule,$(LIB_SCTP),$(SCTP_SRC)))
$(eval $(call lib_rule,$(LIB_RDMAP),$(RDMAP_SRC)))
$(eval $(call lib_rule,$(LIB_SUPPORT),$(SUPPORT_SRC)))

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB_SUPPORT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB_SUPPORT) $(LIBS) -lcmocka $(EXTLIBS)

$(BUILD)/itests/%: $(BUILD)/obj/tests/integration/%.o $(LIB_SUPPORT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB_SUPPORT) $(LIBS) -lcmocka $(EXTLIBS)

$(BUILD)/fuzz-replay/%: $(BUILD)/obj/tests/fuzz/%.o $(BUILD)/obj/tests/fuzz/replay_main.o $(LIB_SUPPORT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/obj/tests/fuzz/replay_main.o $(LIB_SUPPORT) $(LIBS) $(EXTLIBS)

$(BUILD)/bin/%: $(BUILD)/obj/demos/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBS) $(EXTLIBS)

$(BUILD)/obj/examples/pubsub/%.o: examples/pubsub/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -O2 -g -fPIC $(WARN) $(CONF_CFLAGS) $(SANFLAGS) -Iinclude -MMD -MP -c $< -o $@

$(BUILD)/bin/pubsub_relay: $(call obj,$(PUBSUB_RELAY_SRC)) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,$(PUBSUB_RELAY_SRC)) $(LIBS) $(EXTLIBS) -pthread

$(BUILD)/bin/pubsub_client: $(call obj,examples/pubsub/client.c) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $(call obj,examples/pubsub/client.c) $(LIBS) $(EXTLIBS)

define multi_prog
$(BUILD)/bin/$(1): $(call obj,$(wildcard demos/$(1)/*.c)) $(LIBS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS_ALL) -o $$@ $(call obj,$(wildcard demos/$(1)/*.c)) $$(LIBS) $$(EXTLIBS) $$(PROG_LIBS_$(1))
endef
$(foreach d,$(DEMO_DIRS),$(eval $(call multi_prog,$(notdir $(d)))))

# libFuzzer builds. The libraries are built once more in their own
# directory ($(FUZZ_BUILD)) by the library rules above, with clang and the
# fuzzer's coverage instrumentation (SAN=fuzz); each target links against
# those static archives as its corpus replay links against $(BUILD)'s, so
# the linker picks whatever objects a target needs and moving code from one
# file to another cannot break a fuzz link, as it could with a list of
# sources per target. fuzz-ci builds every target, so a link failure also
# fails CI.
FUZZ_BUILD ?= build-fuzz
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_BUILT := $(patsubst %,$(FUZZ_BUILD)/fuzz/%,$(FUZZ_NAMES))
$(BUILD)/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(LIB_SUPPORT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIB_SUPPORT) $(LIBS) $(EXTLIBS)

fuzz-build:
	@[ "$(HAVE_CLANG_FUZZ)" = 1 ] || { echo "fuzz: needs clang (libFuzzer); none was found by configure"; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) SAN=fuzz CC=$(CLANG) $(FUZZ_BUILT)

deps:
	@sh scripts/install-deps.sh

check: deps all
	@DDP_TESTS=fast sh tests/run-tests.sh $(BUILD) $(UNIT_BIN) $(INTEG_BIN) -- $(REPLAY_BIN)

check-long: deps all
	@DDP_TESTS=long sh tests/run-tests.sh $(BUILD) $(UNIT_BIN) $(INTEG_BIN) -- $(REPLAY_BIN)

# The main job: the LLP comparison (ddp-perf) with its plot; a core-only
# build (no libevent/usrsctp) runs the in-memory core demo instead.
demo: deps all
ifeq ($(filter ddp-perf,$(DEMO_NAMES)),ddp-perf)
	$(BUILD)/bin/ddp-perf --plot $(BUILD)/ddp-perf.png
	@echo "plot: $(BUILD)/ddp-perf.png"
else
	$(BUILD)/bin/ddp-demo
endif

# The same comparison between two network namespaces joined by a veth pair
# at MTU 1500 (needs root and iproute2; ddp-perf removes them afterwards).
demo-net: deps all
	$(BUILD)/bin/ddp-perf --netns --mtu 1500 --plot $(BUILD)/ddp-perf-net.png
	@echo "plot: $(BUILD)/ddp-perf-net.png"

# Resident memory of 10,000 MPA connections and 1,000 SCTP associations of
# 16 streams, all moving data, then quiet, then closed (docs/performance.md,
# section 8, "Memory at scale", has the time and memory it takes; root raises
# the descriptor limit). SCALE_ARGS adds options, e.g. SCALE_ARGS="--mpa 2000".
scale: all
	$(BUILD)/bin/ddp-scale $(SCALE_ARGS)

# Every target runs (its corpus grows in $(FUZZ_CORPUS)/<target>/, a crash
# lands there as crash-*); the summary lines of each run are shown, and a
# run that ends in a finding (crash, leak, time-out: libFuzzer's exit status)
# fails the target once every fuzzer has run.
FUZZ_CORPUS ?= tests/fuzz/corpus
fuzz: fuzz-build
	@fail=0; for f in $(FUZZ_BUILT); do n=$$(basename $$f); mkdir -p $(FUZZ_CORPUS)/$$n; \
	  echo "== $$n ($(FUZZ_SECONDS) s)"; log=$$(mktemp); \
	  if $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=$(FUZZ_CORPUS)/$$n/crash- \
	      $(FUZZ_CORPUS)/$$n >$$log 2>&1; then rc=0; else rc=$$?; fi; \
	  grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|crash-' $$log; rm -f $$log; \
	  if [ $$rc -ne 0 ]; then echo "fuzz: $$n FAILED (exit $$rc)"; fail=1; fi; done; exit $$fail

# CI: every target built and run for FUZZ_SECONDS on a scratch copy of its
# corpus (the tree stays clean); any crash, leak, time-out or a target that
# does not build fails; reproducers land in $(FUZZ_BUILD)/artifacts/.
fuzz-ci: fuzz-build
	@fail=0; mkdir -p $(FUZZ_BUILD)/artifacts; \
	for f in $(FUZZ_BUILT); do n=$$(basename $$f); t=$$(mktemp -d); \
	  if $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	      -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$n- $$t tests/fuzz/corpus/$$n \
	      >$(FUZZ_BUILD)/artifacts/$$n.log 2>&1; then \
	    echo "fuzz-ci: $$n ok ($$(grep -o 'stat::number_of_executed_units: [0-9]*' $(FUZZ_BUILD)/artifacts/$$n.log | grep -o '[0-9]*$$') runs)"; \
	  else echo "fuzz-ci: $$n FAILED:"; grep -E 'ERROR|SUMMARY|Test unit written' $(FUZZ_BUILD)/artifacts/$$n.log | head -5; fail=1; fi; \
	  rm -rf $$t; done; exit $$fail

# Minimize every corpus (libFuzzer -merge=1), folding in extra corpus
# directories given as FUZZ_EXTRA=/path/with/<target>/ subdirectories.
fuzz-min: fuzz-build
	@for f in $(FUZZ_BUILT); do n=$$(basename $$f); d=tests/fuzz/corpus/$$n; t=$$(mktemp -d); \
	  extra=; [ -n "$(FUZZ_EXTRA)" ] && [ -d "$(FUZZ_EXTRA)/$$n" ] && extra="$(FUZZ_EXTRA)/$$n"; \
	  $$f -merge=1 $$t $$d $$extra >/dev/null 2>&1 && [ -n "$$(ls -A $$t)" ] && \
	  { for x in $$(ls $$d | grep -E '^[0-9a-f]{40}$$'); do rm -f $$d/$$x; done; \
	    cp $$t/* $$d/; echo "$$n: $$(ls $$d | wc -l) inputs"; }; rm -rf $$t; done
	@echo "(named seeds and crash reproducers are kept; only libFuzzer's hash-named inputs are minimized)"

check-sanitize:
	$(MAKE) BUILD=build-san SAN=1 check

# clang's warnings under the same flags, where they differ from gcc's (under
# -Wformat=2 clang also wants a printf-like wrapper marked as one): every
# target of `all` and the soak program, built in their own directory with
# $(CLANG) and linked, none run.
CLANG_BUILD ?= build-clang
CLANG_EXTRA := $(if $(filter 1,$(HAVE_LIBEVENT)),$(CLANG_BUILD)/soak/ddp-soak)
check-clang-build:
	@[ -n "$(CLANG)" ] || { echo "check-clang-build: needs clang; none was found by configure"; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(CLANG_BUILD) CC=$(CLANG) all $(CLANG_EXTRA)

# ThreadSanitizer: the tests that run endpoints on several
# threads, and the SCTP send paths; reports inside libusrsctp (not built
# with TSan) are suppressed by tests/tsan.supp, never ours.
TSAN_TESTS := test_threads test_sctp_send_path test_sctp_ll
check-tsan:
	$(MAKE) BUILD=build-tsan SAN=tsan $(addprefix build-tsan/itests/,$(TSAN_TESTS))
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  sh tests/run-tests.sh build-tsan $(addprefix build-tsan/itests/,$(TSAN_TESTS)) --

check-valgrind: all
	@DDP_VALGRIND=1 sh tests/run-tests.sh $(BUILD) $(UNIT_BIN) $(INTEG_BIN) -- $(REPLAY_BIN)

# .clang-format over the library's sources (src, include, adapters, rdmap):
# check-format lists what differs (make check runs it too); format applies it
check-format:
	@sh scripts/check-format.sh
format:
	@sh scripts/check-format.sh -i

clean:
	rm -rf build build-san build-tsan build-fuzz build-clang

distclean: clean
	rm -rf config.mk config.log config.status configure autom4te.cache

.PHONY: all check check-long demo demo-net scale fuzz fuzz-build fuzz-ci fuzz-min check-sanitize check-clang-build check-tsan check-valgrind check-format format clean distclean deps
.SECONDARY:

# Extra rule files (packaging, ...) own their targets.
-include $(sort $(wildcard mk/*.mk))

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Interop with Linux soft-iWARP in a VM (tests/interop; builds the VM image
# into $HOME/.cache/siw-vm on first use: root + apt, about 2 minutes).
check-interop: all
	@BUILD=$(BUILD) sh tests/interop/check-interop.sh
.PHONY: check-interop

# The API reference, from the installed headers' own comments:
# $(BUILD)/doc/api.md (scripts/apiref.awk), an index of every function,
# call macro and type first; make install puts it in the doc directory.
# make check fails on an exported function without its comment, and on a
# function named in a comment or in docs/ that does not exist
# (scripts/check-api.sh).
APIREF_HEADERS := include/ddp/ddp.h include/ddp/export.h include/ddp/mpa.h include/ddp/sctp.h \
		  include/ddp/rdmap.h include/ddp/llp.h
$(BUILD)/doc/api.md: $(APIREF_HEADERS) scripts/apiref.awk
	@mkdir -p $(BUILD)/doc
	$(Q){ echo "# libddp API reference ($(shell sed -n 's/^#define DDP_LIB_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' include/ddp/export.h))"; echo; \
	  echo "Made by \`make doc\` from the comments of the installed headers; the rules that hold for every call (threads, lifetime, memory) are at the top of ddp/ddp.h. A call that takes a struct is a macro over the function of its name with \`_sized\` appended, which gets one hidden argument, the sizes of those structs (ddp/export.h)."; echo; \
	  awk -f scripts/apiref.awk $(APIREF_HEADERS); } > $@.tmp
	$(Q)mv $@.tmp $@
doc: $(BUILD)/doc/api.md
	@echo "doc: $(BUILD)/doc/api.md ($$(grep -c '^DDP_API' $(BUILD)/doc/api.md) functions)"
.PHONY: doc

# linkem, the link emulator the namespace tests run (tools/linkem, see
# docs/linkem.md): a stand-alone program, not linked with the libraries.
LINKEM_SRC := $(filter-out tools/linkem/probe.c,$(sort $(wildcard tools/linkem/*.c)))
$(BUILD)/bin/linkem: $(call obj,$(LINKEM_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -pthread -lm
$(BUILD)/bin/linkem-probe: $(call obj,tools/linkem/probe.c)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ -lm
all: $(BUILD)/bin/linkem $(BUILD)/bin/linkem-probe
