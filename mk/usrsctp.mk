# usrsctp built from Debian's source package (USRSCTP_BUNDLED=1, the
# default of ./configure): scripts/usrsctp-source.sh fetches libusrsctp
# $(USRSCTP_VERSION) once into .deps/usrsctp/, unpacks it with Debian's own
# patches into $(USRSCTP_TREE) and applies adapters/sctp/usrsctp/patches/series.
# The objects join libddp_sctp.a (and the installed libddp-sctp, where
# every usrsctp symbol is local: mk/install.mk). Only usrsctp.h is put on
# the include path ($(USRSCTP_TREE)/include), so none of usrsctp's internal
# headers can shadow a system one.
#
#   make usrsctp-source   fetch, unpack and patch (done by the build itself)
#   make check-system-usrsctp   the SCTP tests against the packaged
#                         libusrsctp (build-sysusrsctp/), as CI runs them
ifeq ($(HAVE_USRSCTP)$(USRSCTP_BUNDLED),11)
USRSCTP_PATCH_DIR := adapters/sctp/usrsctp/patches
USRSCTP_STAMP := $(USRSCTP_TREE)/.patched
# usrsctp's own build flags on Linux (its configure.ac and meson.build):
# the userspace stack, one process-level lock, IPv4 and IPv6, the headers
# this system has. Its code is not ours: our warning flags do not apply.
# Under the sanitizer builds usrsctp gets ASan (or TSan) but not UBSan or
# the fuzzer's coverage: its own undefined behaviour is not ours to fail on.
USRSCTP_SAN := $(if $(filter 1 fuzz,$(SAN)),-fsanitize=address -fno-omit-frame-pointer,$(SANFLAGS))
USRSCTP_CFLAGS := -std=gnu99 -O2 -g -fPIC -pthread $(USRSCTP_SAN) \
	-D__Userspace__ -DSCTP_SIMPLE_ALLOCATOR -DSCTP_PROCESS_LEVEL_LOCKS -D_GNU_SOURCE \
	-DINET -DINET6 -DHAVE_STDATOMIC_H -DHAVE_SYS_QUEUE_H -DHAVE_LINUX_IF_ADDR_H \
	-DHAVE_LINUX_RTNETLINK_H -DHAVE_NETINET_IP_ICMP_H -Wno-address-of-packed-member \
	-I$(USRSCTP_TREE)/usrsctplib

$(USRSCTP_STAMP): scripts/usrsctp-source.sh $(USRSCTP_PATCH_DIR)/series \
		$(wildcard $(USRSCTP_PATCH_DIR)/*.patch)
	@sh scripts/usrsctp-source.sh $(USRSCTP_VERSION) .deps/usrsctp $(USRSCTP_TREE) $(USRSCTP_PATCH_DIR)
	@mkdir -p $(USRSCTP_TREE)/include
	@cp $(USRSCTP_TREE)/usrsctplib/usrsctp.h $(USRSCTP_TREE)/include/
	@touch $@

usrsctp-source: $(USRSCTP_STAMP)

$(BUILD)/obj/usrsctp/%.o: $(USRSCTP_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(USRSCTP_CFLAGS) -c $(USRSCTP_TREE)/usrsctplib/$*.c -o $@

$(LIB_SCTP): $(USRSCTP_OBJ)
# every object of ours may include usrsctp.h (the glue does)
$(call obj,$(SCTP_SRC)): | $(USRSCTP_STAMP)
else
usrsctp-source:
	@echo "usrsctp-source: this build links the packaged libusrsctp (or none)"
endif

# The second build variant CI runs: the packaged libusrsctp instead of the
# patched source, and only the tests that difference can change (those of
# the SCTP adapter: its unit, integration and corpus-replay tests).
SYSUSRSCTP_BUILD := build-sysusrsctp
SYSUSRSCTP_KEEP := sctp one_model same_behaviour one_behaviour setup_ownership threads
sysusrsctp_pick = $(foreach t,$(patsubst $(BUILD)/%,$(SYSUSRSCTP_BUILD)/%,$(1)),\
	$(if $(strip $(foreach k,$(SYSUSRSCTP_KEEP),$(findstring $(k),$(notdir $(t))))),$(t)))
check-system-usrsctp:
	$(MAKE) BUILD=$(SYSUSRSCTP_BUILD) USRSCTP_BUNDLED=0 all
	@DDP_TESTS=fast DDP_PROGRAMS=0 sh tests/run-tests.sh $(SYSUSRSCTP_BUILD) \
	  $(call sysusrsctp_pick,$(UNIT_BIN) $(INTEG_BIN)) -- \
	  $(filter $(SYSUSRSCTP_BUILD)/fuzz-replay/fuzz_sctp%,$(patsubst $(BUILD)/%,$(SYSUSRSCTP_BUILD)/%,$(REPLAY_BIN)))

# ddp-perf's usrsctp-system row runs ddp-perf built against the packaged
# libusrsctp, $(SYSUSRSCTP_BUILD)/bin/ddp-perf (drv_usrsctp_system.c; one
# process cannot hold two usrsctp stacks): perf-system-usrsctp builds it,
# and make demo, demo-net and check-long (its test) build it first.
# Every ddp-perf is told where that program is and which usrsctp it was
# itself built with (demos/ddp-perf/usrsctp_build.c), for its table.
perf-system-usrsctp:
	$(MAKE) BUILD=$(SYSUSRSCTP_BUILD) USRSCTP_BUNDLED=0 $(SYSUSRSCTP_BUILD)/bin/ddp-perf
ifeq ($(HAVE_USRSCTP)$(USRSCTP_BUNDLED),11)
demo demo-net check-long: perf-system-usrsctp
PERF_PATCHES := $(shell sed -n 's/^\([0-9][0-9]*\)-.*\.patch$$/\1/p' $(USRSCTP_PATCH_DIR)/series)
PERF_USRSCTP := libusrsctp $(USRSCTP_VERSION) + $(words $(PERF_PATCHES)) \
	$(if $(filter 1,$(words $(PERF_PATCHES))),patch,patches) ($(PERF_PATCHES)) of $(USRSCTP_PATCH_DIR)
else
PERF_USRSCTP := packaged libusrsctp $(shell dpkg-query -W -f='$${Version}' libusrsctp-dev 2>/dev/null || \
	pkg-config --modversion usrsctp 2>/dev/null)
endif
$(BUILD)/obj/demos/ddp-perf/usrsctp_build.o: config.mk $(wildcard adapters/sctp/usrsctp/patches/series)
$(BUILD)/obj/demos/ddp-perf/usrsctp_build.o: CFLAGS_ALL += -DDDP_PERF_USRSCTP='"$(strip $(PERF_USRSCTP))"' \
	-DDDP_PERF_SYSTEM_PERF='"$(abspath $(SYSUSRSCTP_BUILD))/bin/ddp-perf"'

.PHONY: usrsctp-source check-system-usrsctp perf-system-usrsctp
