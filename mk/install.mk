# Packaging: shared libraries, install/uninstall, pkg-config files.
# Included at the end of the top Makefile (every object is built -fPIC).
#
#   make shared                     $(BUILD)/lib/libddp{,-mpa,-sctp,-rdmap}.so*
#   make install   [DESTDIR=] [prefix=/usr/local] [libdir=] [includedir=]
#   make uninstall [DESTDIR=] [prefix=...]   removes what install put there
#
# Installed libraries (each as .a and as .so with SONAME lib*.so.MAJOR):
#   libddp       the DDP core (src/) + CRC32c (adapters/common)      libddp.pc
#   libddp-mpa   MPA/TCP: adapters/mpa/ and its tcp/, adapters/event  libddp-mpa.pc
#   libddp-sctp  DDP/SCTP over usrsctp: adapters/sctp/ and its       libddp-sctp.pc
#                usrsctp/ and udp/, adapters/event
#   libddp-rdmap RDMAP (RFC 5040) on the DDP API: rdmap/            libddp-rdmap.pc
#                (needs libddp only, so it is built in every configuration)
# Headers: ddp/ddp.h, ddp/llp.h (the contract for third-party LLPs), ddp/mpa.h,
# ddp/sctp.h, ddp/rdmap.h: every file under include/ddp/ is installed, and
# include/ddp/ holds nothing else (test_symbols.sh checks it). Test hooks live
# in internal headers: src/ddp_debug.h for the core (MSN wrap, failmalloc:
# they break protocol invariants on purpose) and adapters/ddp_test.h for the
# adapters (e.g. an endpoint without the DDP adaptation indication, the
# usrsctp-stock endpoint of ddp-perf's baseline), the one internal header
# the programs may include; the test suite and the programs reach them
# through the static build-tree libraries.
# Namespace: every installed library, shared AND static, defines exactly the
# functions declared in its installed headers as globals (libddp also the
# ddp_crc32c*, ddp_siphash* and ddp_*_fmt helpers of adapters/common that libddp-mpa and
# libddp-sctp call): all ddp_*. The ddp_debug_* hooks and the internal
# helpers of each library (stream_error, mpa_proto_new, sctp_udp_open, ...)
# stay local to it, so an application's own names never clash with them,
# linked dynamically or statically. tests/programs/test_symbols.sh checks it.

DDP_VERSION := $(shell sed -n 's/^AC_INIT.\[libddp\]. *\[\([0-9.]*\)\].*/\1/p' configure.ac 2>/dev/null)
ifeq ($(DDP_VERSION),)
DDP_VERSION := 0.1.0
endif
DDP_SOMAJOR := $(firstword $(subst ., ,$(DDP_VERSION)))

# GNU directory variables (prefix comes from config.mk; all overridable).
# PREFIX (upper case) is a common slip for prefix: take it as prefix rather
# than install somewhere the user did not ask for.
ifdef PREFIX
ifneq ($(origin prefix),command line)
prefix := $(PREFIX)
endif
endif
exec_prefix ?= $(prefix)
libdir ?= $(exec_prefix)/lib
includedir ?= $(prefix)/include
pkgconfigdir ?= $(libdir)/pkgconfig
datarootdir ?= $(prefix)/share
docdir ?= $(datarootdir)/doc/libddp
# Documentation: the API reference with its index (make doc:
# $(BUILD)/doc/api.md) as $(docdir)/api.md, and the examples: sources and
# their Makefile, built by the user with pkg-config (examples/Makefile).
PKG_EXAMPLES := examples/Makefile examples/echo_client.c examples/echo_server.c
# examples/pubsub (the pub/sub relay and client) goes to examples/pubsub/
PKG_EXAMPLES_PUBSUB := $(sort $(wildcard examples/pubsub/*.c examples/pubsub/*.h)) \
		examples/pubsub/Makefile examples/pubsub/README.md
INSTALL ?= install
NM ?= nm
OBJCOPY ?= objcopy

PKG_LIBDIR := $(BUILD)/lib
PKG_STATIC := $(BUILD)/lib/static
PKG_GEN := $(BUILD)/pkgconfig

# ------------------------------------------------------------ what exists
# name | objects | public headers whose functions it exports | link deps
PKG_CORE_OBJ := $(call obj,$(CORE_SRC) $(COMMON_SRC))
PKG_CORE_HDR := include/ddp/ddp.h include/ddp/llp.h src/conn_glue.h src/log_limit.h adapters/common/crc32c.h \
		adapters/common/peer_addr.h adapters/common/siphash.h
PKG_CORE_DEPS := $(if $(filter 1,$(HAVE_ISAL)),-lisal)
PKG_MPA_OBJ := $(call obj,$(MPA_SRC))
PKG_MPA_HDR := include/ddp/mpa.h
PKG_SCTP_OBJ := $(call obj,$(SCTP_SRC)) $(USRSCTP_OBJ)
PKG_SCTP_HDR := include/ddp/sctp.h
PKG_RDMAP_OBJ := $(call obj,$(RDMAP_SRC))
PKG_RDMAP_HDR := include/ddp/rdmap.h

PKG_NAMES := libddp libddp-rdmap
PKG_HEADERS := include/ddp/ddp.h include/ddp/export.h include/ddp/llp.h include/ddp/rdmap.h
ifeq ($(HAVE_LIBEVENT),1)
PKG_NAMES += libddp-mpa
PKG_HEADERS += include/ddp/mpa.h
ifeq ($(HAVE_USRSCTP),1)
PKG_NAMES += libddp-sctp
PKG_HEADERS += include/ddp/sctp.h
endif
endif

pkg_so = $(PKG_LIBDIR)/$(1).so.$(DDP_VERSION)
PKG_SO := $(foreach n,$(PKG_NAMES),$(call pkg_so,$(n)))
PKG_A := $(patsubst %,$(PKG_STATIC)/%.a,$(PKG_NAMES))
PKG_PC := $(patsubst %,$(PKG_GEN)/%.pc,$(PKG_NAMES))

# Undefined symbols in a shared library are link errors, except under the
# sanitizers (clang leaves the ASan runtime to the executable).
ifneq ($(SAN),1)
PKG_NOUNDEF := -Wl,--no-undefined
endif

# ------------------------------------------------------------ export lists
# $(PKG_GEN)/NAME.syms: the functions the library's public headers declare
# with DDP_API (include/ddp/export.h) that its objects define, one per line.
# Both the shared library's version script (NAME.map: every symbol at
# version LIBDDP_<SONAME major>) and the installed archive (below) take it,
# so libNAME.a exports exactly these and libNAME.so these plus NAME.compat.
# $(PKG_GEN)/NAME.compat: the 1.0 entry points of the calls that take a
# struct. Each such call is a macro, ddp_x(...), over ddp_x_sized(...,
# sizes) (ddp/export.h); the 1.0 headers named the function ddp_x itself,
# with the same parameters, so programs built against them link to
# ddp_x@LIBDDP_1. The shared library keeps that symbol as a second name
# of ddp_x_sized (ld --defsym: the same address, the same version node),
# made from the headers' macros. A static link uses the headers it is
# built with, so the archive needs no such name.
define pkg_syms_rule
$(PKG_GEN)/$(1).syms: $(2) $(3)
	@mkdir -p $$(dir $$@)
	$$(Q)LC_ALL=C $$(NM) -g --defined-only $(2) | awk 'NF==3 {print $$$$3}' | LC_ALL=C sort -u > $$@.def
	$$(Q)LC_ALL=C grep -h '^DDP_API' $(3) | grep -o 'ddp_[A-Za-z0-9_]* *(' | tr -d ' (' | LC_ALL=C sort -u | \
	  LC_ALL=C comm -12 - $$@.def > $$@.tmp
	$$(Q)rm -f $$@.def
	@# an empty list would keep every symbol global in the archive
	$$(Q)test -s $$@.tmp || { echo "$$@: no public function found" >&2; rm -f $$@.tmp; exit 1; }
	$$(Q)mv $$@.tmp $$@
$(PKG_GEN)/$(1).compat: $(PKG_GEN)/$(1).syms $(3)
	$$(Q)LC_ALL=C grep -h '^#define ddp_[a-z0-9_]*(\.\.\.)' $(3) | sed 's/^#define \(ddp_[a-z0-9_]*\).*/\1/' | \
	  LC_ALL=C sort -u | awk 'NR == FNR { have[$$$$1] = 1; next } have[$$$$1 "_sized"]' $$< - > $$@.tmp
	$$(Q)mv $$@.tmp $$@
$(PKG_GEN)/$(1).map: $(PKG_GEN)/$(1).syms $(PKG_GEN)/$(1).compat mk/install.mk
	$$(Q){ echo 'LIBDDP_$$(DDP_SOMAJOR) {'; echo 'global:'; cat $(PKG_GEN)/$(1).syms $(PKG_GEN)/$(1).compat | sed 's/.*/	&;/'; \
	  echo 'local:'; echo '	*;'; echo '};'; } > $$@.tmp
	$$(Q)mv $$@.tmp $$@
endef
$(eval $(call pkg_syms_rule,libddp,$(PKG_CORE_OBJ),$(PKG_CORE_HDR)))
$(eval $(call pkg_syms_rule,libddp-mpa,$(PKG_MPA_OBJ),$(PKG_MPA_HDR)))
$(eval $(call pkg_syms_rule,libddp-sctp,$(PKG_SCTP_OBJ),$(PKG_SCTP_HDR)))
$(eval $(call pkg_syms_rule,libddp-rdmap,$(PKG_RDMAP_OBJ),$(PKG_RDMAP_HDR)))

# ------------------------------------------------------------ shared libs
# $(1) name, $(2) objects, $(3) extra prerequisites (libraries linked by
# path), $(4) -l flags. Leaves the SONAME and dev symlinks beside the file.
define pkg_so_rule
$(call pkg_so,$(1)): $(2) $(3) $(PKG_GEN)/$(1).map
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) -shared $$(LDFLAGS_ALL) -Wl,-soname,$(1).so.$$(DDP_SOMAJOR) \
		-Wl,--version-script=$(PKG_GEN)/$(1).map $$(PKG_NOUNDEF) \
		$$$$(sed 's/.*/-Wl,--defsym=&=&_sized/' $(PKG_GEN)/$(1).compat) \
		-o $$@ $(2) $(3) $(4)
	$$(Q)ln -sf $(1).so.$$(DDP_VERSION) $(PKG_LIBDIR)/$(1).so.$$(DDP_SOMAJOR)
	$$(Q)ln -sf $(1).so.$$(DDP_SOMAJOR) $(PKG_LIBDIR)/$(1).so
endef
$(eval $(call pkg_so_rule,libddp,$(PKG_CORE_OBJ),,$(PKG_CORE_DEPS)))
$(eval $(call pkg_so_rule,libddp-mpa,$(PKG_MPA_OBJ),$(call pkg_so,libddp),-levent_core -levent_extra))
$(eval $(call pkg_so_rule,libddp-sctp,$(PKG_SCTP_OBJ),$(call pkg_so,libddp),$(USRSCTP_LIBS) -levent_core -levent_extra))
$(eval $(call pkg_so_rule,libddp-rdmap,$(PKG_RDMAP_OBJ),$(call pkg_so,libddp),))

# Static archives for installation (the build tree's own libddp.a holds src/
# only; the installed one also holds adapters/common). The build tree's
# archives (build/lib/libddp_*.a) keep every internal function global: the
# tests call them. An installed archive instead holds ONE relocatable object,
# its library's objects joined by `cc -r` (cross-file calls resolved inside
# it), in which objcopy --keep-global-symbols leaves only NAME.syms global:
# helpers such as stream_error, tx_pump, mpa_proto_new or sctp_udp_open
# become local, so an application may define the same names and libddp's
# calls still reach its own. Cross-library calls (libddp-mpa, -sctp and
# -rdmap into libddp: the ddp_llp_* entry points, ddp_crc32c*, ...) use
# functions on libddp's list. Cost: a static link takes a whole library, not
# only the objects it references.
define pkg_a_rule
$(PKG_STATIC)/$(1).a: $(2) $(PKG_GEN)/$(1).syms mk/install.mk
	@mkdir -p $$(dir $$@)
	@rm -f $$@ $(PKG_STATIC)/$(1).o
	$$(Q)$$(CC) -r -nostdlib -o $(PKG_STATIC)/$(1).o $(2)
	$$(Q)$$(OBJCOPY) --keep-global-symbols=$(PKG_GEN)/$(1).syms $(PKG_STATIC)/$(1).o
	$$(Q)$$(AR) rcs $$@ $(PKG_STATIC)/$(1).o
endef
$(eval $(call pkg_a_rule,libddp,$(PKG_CORE_OBJ)))
$(eval $(call pkg_a_rule,libddp-mpa,$(PKG_MPA_OBJ)))
$(eval $(call pkg_a_rule,libddp-sctp,$(PKG_SCTP_OBJ)))
$(eval $(call pkg_a_rule,libddp-rdmap,$(PKG_RDMAP_OBJ)))

shared: $(PKG_SO)

# ------------------------------------------------------------ pkg-config
# Regenerated on every run: prefix/libdir may differ between invocations.
# Paths under ${prefix} / ${exec_prefix} are written relative to them so
# `pkg-config --define-prefix` can relocate the tree.
PKG_PC_LIBDIR = $(patsubst $(exec_prefix)/%,$${exec_prefix}/%,$(libdir))
PKG_PC_INCDIR = $(patsubst $(prefix)/%,$${prefix}/%,$(includedir))
PKG_PC_EXEC = $(patsubst $(prefix)%,$${prefix}%,$(exec_prefix))

pkgconfig-files: $(PKG_PC)

$(PKG_GEN)/%.pc: pkgconfig/%.pc.in ddp-pkg-force
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@prefix@|$(prefix)|g' -e 's|@exec_prefix@|$(PKG_PC_EXEC)|g' \
		-e 's|@libdir@|$(PKG_PC_LIBDIR)|g' -e 's|@includedir@|$(PKG_PC_INCDIR)|g' \
		-e 's|@VERSION@|$(DDP_VERSION)|g' \
		-e 's|@USRSCTP_LIBS@|$(if $(filter -lusrsctp,$(USRSCTP_LIBS)),-lusrsctp ,)|g' \
		-e 's|@ISAL_REQUIRES@|$(if $(filter 1,$(HAVE_ISAL)),libisal,)|g' \
		$< > $@

# ------------------------------------------------------------ install
install: $(PKG_SO) $(PKG_A) $(PKG_PC) $(BUILD)/doc/api.md
	$(INSTALL) -d $(DESTDIR)$(includedir)/ddp $(DESTDIR)$(libdir) $(DESTDIR)$(pkgconfigdir)
	$(INSTALL) -m 644 $(PKG_HEADERS) $(DESTDIR)$(includedir)/ddp/
	$(INSTALL) -m 644 $(PKG_A) $(DESTDIR)$(libdir)/
	$(INSTALL) -m 755 $(PKG_SO) $(DESTDIR)$(libdir)/
	@for n in $(PKG_NAMES); do \
		echo "ln -sf $$n.so.$(DDP_VERSION) $(DESTDIR)$(libdir)/$$n.so.$(DDP_SOMAJOR)"; \
		ln -sf $$n.so.$(DDP_VERSION) $(DESTDIR)$(libdir)/$$n.so.$(DDP_SOMAJOR) || exit 1; \
		ln -sf $$n.so.$(DDP_SOMAJOR) $(DESTDIR)$(libdir)/$$n.so || exit 1; \
	done
	$(INSTALL) -m 644 $(PKG_PC) $(DESTDIR)$(pkgconfigdir)/
	$(INSTALL) -d $(DESTDIR)$(docdir)/examples
	$(INSTALL) -m 644 $(BUILD)/doc/api.md $(DESTDIR)$(docdir)/
	$(INSTALL) -m 644 $(PKG_EXAMPLES) $(DESTDIR)$(docdir)/examples/
	$(INSTALL) -d $(DESTDIR)$(docdir)/examples/pubsub
	$(INSTALL) -m 644 $(PKG_EXAMPLES_PUBSUB) $(DESTDIR)$(docdir)/examples/pubsub/
	@test -n "$(DESTDIR)" || echo "install: run ldconfig if $(libdir) is in the loader's path"

# Removes every file install can put there (all four libraries and all
# headers, whatever this build has), then include/ddp when it is empty.
# Shared directories (lib, lib/pkgconfig, include) are left alone.
PKG_ALL := libddp libddp-mpa libddp-sctp libddp-rdmap
uninstall:
	rm -f $(patsubst %,$(DESTDIR)$(includedir)/ddp/%.h,ddp export llp mpa sctp rdmap)
	rm -f $(foreach n,$(PKG_ALL),$(DESTDIR)$(libdir)/$(n).a $(DESTDIR)$(libdir)/$(n).so \
		$(DESTDIR)$(libdir)/$(n).so.$(DDP_SOMAJOR) $(DESTDIR)$(libdir)/$(n).so.$(DDP_VERSION) \
		$(DESTDIR)$(pkgconfigdir)/$(n).pc)
	rm -f $(patsubst examples/%,$(DESTDIR)$(docdir)/examples/%,$(PKG_EXAMPLES) $(PKG_EXAMPLES_PUBSUB))
	rm -f $(DESTDIR)$(docdir)/api.md
	@rmdir $(DESTDIR)$(docdir)/examples/pubsub 2>/dev/null || true
	@rmdir $(DESTDIR)$(includedir)/ddp 2>/dev/null || true
	@rmdir $(DESTDIR)$(docdir)/examples $(DESTDIR)$(docdir) 2>/dev/null || true

.PHONY: shared install uninstall pkgconfig-files ddp-pkg-force
