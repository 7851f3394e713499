# ABI check of the shared libraries against the baseline in abi/:
#
#   make check-abi      abidiff of each built libNAME.so against
#                       abi/NAME.abi; fails on any change to what is
#                       already exported (a removed function, any change
#                       of a type a public call takes) except new
#                       functions and fields appended to the structs the
#                       calls read by the caller's size (abi/grow.suppr);
#                       a struct another one holds may not grow
#   make abi-baseline   writes abi/NAME.abi from the current build: do it
#                       with a release, and with an incompatible change
#                       only together with a new SONAME major
#
# The baseline is abidw's XML of each library restricted to the types of
# the installed headers (--headers-dir include/ddp). Needs libabigail's
# tools (Debian: abigail-tools, installed by scripts/install-deps.sh).
ABI_DIR := abi
ABI_LIBS = $(PKG_NAMES)
# The comparison (tests/programs/test_abi_nested.sh runs the same one).
# --leaf-changes-only: every changed type is judged on its own. Without
# it a change is judged where a call reaches it: a grown
# ddp_session_config inside ddp_mpa_config passes as growth of
# ddp_mpa_config (a struct allowed to grow), though the fields after the
# nested struct moved.
ABIDIFF = abidiff --leaf-changes-only --no-added-syms --suppressions $(ABI_DIR)/grow.suppr

abi-baseline: shared
	@mkdir -p $(ABI_DIR)
	@for n in $(ABI_LIBS); do \
	  abidw --headers-dir include/ddp --no-corpus-path --out-file $(ABI_DIR)/$$n.abi \
	      $(call pkg_so,$$n) || exit 1; echo "abi-baseline: $(ABI_DIR)/$$n.abi"; done

# abidiff's exit status is a bit mask: 1 error, 2 usage, 4 an ABI change,
# 8 an incompatible ABI change; with --no-added-syms new functions are
# not a change, and any other (4 or 8) fails.
check-abi: shared
	@command -v abidiff >/dev/null || { echo "check-abi: abidiff not installed (abigail-tools)"; exit 1; }
	@fail=0; for n in $(ABI_LIBS); do \
	  if [ ! -f $(ABI_DIR)/$$n.abi ]; then echo "check-abi: no baseline $(ABI_DIR)/$$n.abi"; fail=1; continue; fi; \
	  $(ABIDIFF) --headers-dir2 include/ddp $(ABI_DIR)/$$n.abi $(call pkg_so,$$n) \
	      > $(BUILD)/abi-$$n.txt 2>&1; rc=$$?; \
	  if [ $$rc -ne 0 ]; then echo "check-abi: $$n: ABI changed (abidiff $$rc):"; \
	    sed -n '1,40p' $(BUILD)/abi-$$n.txt; fail=1; \
	  else echo "check-abi: $$n: no change to what it exports"; fi; done; exit $$fail

.PHONY: abi-baseline check-abi
