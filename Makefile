# sandcap — plain GNU Makefile.  See README.md; `make help` lists the targets.
VERSION      := 0.1.0
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBEXECDIR   ?= $(PREFIX)/libexec
SYSCONFDIR   ?= /etc
MANDIR       ?= $(PREFIX)/share/man
DATADIR      ?= $(PREFIX)/share
DOCDIR       ?= $(DATADIR)/doc/sandcap
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR  ?= $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR  ?= $(DATADIR)/bash-completion/completions
DESTDIR      ?=
CC           ?= gcc
CLANG        ?= clang
PKG_CONFIG   ?= pkg-config

SANITIZE     ?= 0
V            ?= 0
ifeq ($(V),1)
Q :=
E := @true
else
Q := @
E := @echo
endif
ifeq ($(SANITIZE),1)
BUILD        ?= build-san
else
BUILD        ?= build
endif
# Parallel jobs of make check's build step (the machine's CPUs).
JOBS         ?= $(shell nproc 2>/dev/null || echo 1)

HELPER_PATH  ?= $(LIBEXECDIR)/sandcap/sandcap-helper
POLICY_PATH  ?= $(SYSCONFDIR)/sandcap/sandbox.ini
RUNSTATEDIR  ?= /run
DEADLINE_DIR ?= $(RUNSTATEDIR)/sandcap-deadlines
SETUP_PATH   ?= $(LIBEXECDIR)/sandcap/sandcap-setup

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wswitch-enum -Wvla -Wnull-dereference -Wno-unused-parameter -Wno-format-truncation \
	-Werror=implicit-function-declaration -Werror=incompatible-pointer-types \
	-Werror=int-conversion -Werror=format-security -Werror=return-type -Werror

HARDEN := -fstack-protector-strong -fstack-clash-protection -fcf-protection -fPIE
HARDEN_LD := -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack
# Only the libraries a program calls are NEEDED: the dynamic loader maps and relocates every
# one at each start.
LINK_LD := -Wl,--as-needed

ifeq ($(SANITIZE),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
OPT_LD := -fsanitize=address,undefined
else
OPT := -O2 -g -D_FORTIFY_SOURCE=3
OPT_LD :=
endif

PKGS_HELPER   := inih libcap-ng
PKGS_FRONTEND := inih libbsd-overlay libseccomp libcap-ng
# libsystemd: its headers only.  sandcap loads the library when user-cgroup mode first
# needs it (frontend/cgroup/sdbus.h); the package Recommends it.
PKG_CFLAGS    := $(shell $(PKG_CONFIG) --cflags $(PKGS_FRONTEND) libsystemd 2>/dev/null)
# The helper links the shared libinih like sandcap: it runs in secure-execution mode (its
# file capabilities), where the dynamic loader ignores LD_* and loads only from the system's
# directories.
LIBS_HELPER   := $(shell $(PKG_CONFIG) --libs $(PKGS_HELPER) 2>/dev/null)
# The distribution's shared libraries, as for every program it ships: a security update of
# one reaches sandcap without a rebuild.
LIBS_FRONTEND := $(shell $(PKG_CONFIG) --libs $(PKGS_FRONTEND) 2>/dev/null)
LIBS_TEST     := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
# libcap-ng: the helper's capabilities, sandcap doctor's reading of the helper's, and the
# VM suite's probe-capcg.
LIBS_PROBE    := $(shell $(PKG_CONFIG) --cflags --libs libcap-ng 2>/dev/null)

DEFS := -DSC_VERSION='"$(VERSION)"' -DSC_HELPER_PATH='"$(HELPER_PATH)"' \
	-DSC_POLICY_PATH='"$(POLICY_PATH)"' -D_GNU_SOURCE \
	-DSC_PROFILES_DIR='"$(SYSCONFDIR)/sandcap/profiles.d"' \
	-DSC_DEADLINE_DIR='"$(DEADLINE_DIR)"' -DSC_SETUP_PATH='"$(SETUP_PATH)"'

# The paths compiled into the programs, recorded in $(BUILD)/paths.stamp: every object depends
# on it, and it is rewritten only when they change, so `make install PREFIX=/usr` after a
# plain `make` rebuilds with the paths it installs to instead of installing a front-end
# that looks for its helper elsewhere.
PATHS_STAMP := $(BUILD)/paths.stamp
PATHS_TEXT  := helper=$(HELPER_PATH) policy=$(POLICY_PATH) sysconf=$(SYSCONFDIR) \
	deadlines=$(DEADLINE_DIR) setup=$(SETUP_PATH)
ifeq ($(filter clean help deps,$(MAKECMDGOALS)),)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(PATHS_STAMP) 2>/dev/null)" = '$(PATHS_TEXT)' ] || \
	printf '%s\n' '$(PATHS_TEXT)' > $(PATHS_STAMP); })
endif

BASE_CFLAGS := -std=gnu11 $(OPT) $(WARN) $(HARDEN) $(DEFS) $(PKG_CFLAGS) -MMD -MP
override CFLAGS := $(BASE_CFLAGS) $(CFLAGS)
override LDFLAGS := $(OPT_LD) $(HARDEN_LD) $(LINK_LD) $(LDFLAGS)

# Include paths enforce the layering: helper/ and frontend/ see lib/ and policy/, never
# each other.
INC_LIB      := -Ilib
INC_POLICY   := -Ilib -Ipolicy
INC_FRONTEND := -Ilib -Ipolicy -Ifrontend
INC_HELPER   := -Ilib -Ipolicy -Ihelper
INC_REAPER   := -Ilib

LIB_SRC      := $(wildcard lib/*.c)
POLICY_SRC   := $(wildcard policy/*.c)
# The front-end's groups, highest first: each may use the groups after it (and lib/,
# policy/), never one before it; tools/check-layers.sh checks the include lines.
FE_GROUPS    := cmd run report supervise cgroup isolate net
FRONTEND_SRC := $(wildcard frontend/*.c $(FE_GROUPS:%=frontend/%/*.c))
HELPER_SRC   := $(wildcard helper/*.c)
REAPER_SRC   := $(wildcard reaper/*.c)
UNIT_SRC     := $(wildcard tests/unit/test-*.c)
PROBE_SRC    := $(wildcard tests/integration/probe-*.c tests/vm/probe-*.c tests/vm/hostile-*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz-*.c)

LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/%.o)
POLICY_OBJ   := $(POLICY_SRC:%.c=$(BUILD)/%.o)
FRONTEND_OBJ := $(FRONTEND_SRC:%.c=$(BUILD)/%.o)
HELPER_OBJ   := $(HELPER_SRC:%.c=$(BUILD)/%.o)
REAPER_OBJ   := $(REAPER_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
PROBE_BIN    := $(foreach p,$(PROBE_SRC),$(BUILD)/tests/$(notdir $(p:.c=)))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
SCTPL_GEN    := $(BUILD)/tools/seccomp-gen
SCTPL_OBJ    := $(BUILD)/gen/seccomp-tpl-data.o

SANDCAP      := $(BUILD)/sandcap
HELPER       := $(BUILD)/sandcap-helper
REAPER       := $(BUILD)/sandcap-reaper

.PHONY: deb hooks all help deps demo check check-unit check-integration check-vm check-python check-fuzz fuzz \
	format-check tcb-size bench install install-caps uninstall dist clean probes lint

all: $(SANDCAP) $(HELPER) $(REAPER) probes

help:
	@echo "make deps | all | demo | check | check-unit | check-integration | check-vm | check-python"
	@echo "     fuzz | lint | format-check | tcb-size | bench | install | install-caps | uninstall"
	@echo "     dist | deb | hooks"
	@echo "Variables: SANITIZE=1 PREFIX BINDIR LIBEXECDIR SYSCONFDIR MANDIR DOCDIR"
	@echo "     SYSTEMD_VERSION DESTDIR CC"

deps:
	@sh tools/deps.sh

$(BUILD)/lib/%.o: lib/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_LIB) -c $< -o $@
$(BUILD)/policy/%.o: policy/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_POLICY) -c $< -o $@
$(BUILD)/frontend/%.o: frontend/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) -c $< -o $@
$(BUILD)/helper/%.o: helper/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_HELPER) -c $< -o $@

$(BUILD)/reaper/%.o: reaper/%.c $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_REAPER) -c $< -o $@

$(BUILD)/libsandcap.a: $(LIB_OBJ) $(POLICY_OBJ)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^
# One archive per front-end group, linked in the order of FE_GROUPS.
FE_LIBS := $(FE_GROUPS:%=$(BUILD)/libfe-%.a)
FE_LINK := -Wl,--start-group $(FE_LIBS) -Wl,--end-group
define fe_group
$(BUILD)/libfe-$(1).a: $$(patsubst %.c,$(BUILD)/%.o,$$(wildcard frontend/$(1)/*.c)) \
		$(if $(filter isolate,$(1)),$(SCTPL_OBJ))
	@rm -f $$@
	$$(Q)$$(AR) rcs $$@ $$^
endef
$(foreach g,$(FE_GROUPS),$(eval $(call fe_group,$(g))))
$(BUILD)/libhelper.a: $(filter-out $(BUILD)/helper/main.o,$(HELPER_OBJ))
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

# The seccomp filter's programs, generated by libseccomp at build time on this machine
# (frontend/isolate/seccomp-tpl.h, issue 19); the generator fails the build on any doubt.
$(SCTPL_GEN): tools/seccomp-gen.c $(BUILD)/frontend/isolate/seccomp-rules.o \
		$(BUILD)/frontend/isolate/protect.o \
		$(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) $< -o $@ $(LDFLAGS) $(filter %.o %.a,$^) $(LIBS_FRONTEND)
$(BUILD)/gen/seccomp-tpl-data.c: $(SCTPL_GEN)
	@mkdir -p $(@D)
	$(E) '  GEN    $@'
	$(Q)$(SCTPL_GEN) > $@.tmp && mv $@.tmp $@
$(SCTPL_OBJ): $(BUILD)/gen/seccomp-tpl-data.c
	$(E) '  CC     $<'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) -c $< -o $@

$(SANDCAP): $(BUILD)/frontend/main.o $(FE_LIBS) $(BUILD)/libsandcap.a
	$(E) '  LD     $@'
	$(Q)$(CC) $(LDFLAGS) -o $@ $(BUILD)/frontend/main.o $(FE_LINK) $(BUILD)/libsandcap.a \
		$(LIBS_FRONTEND)
$(HELPER): $(BUILD)/helper/main.o $(BUILD)/libhelper.a $(BUILD)/libsandcap.a
	$(E) '  LD     $@'
	$(Q)$(CC) $(LDFLAGS) -Wl,-Map=$@.map -o $@ $^ $(LIBS_HELPER)

$(REAPER): $(REAPER_OBJ) $(BUILD)/libsandcap.a
	$(E) '  LD     $@'
	$(Q)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/test-%: tests/unit/test-%.c $(FE_LIBS) $(BUILD)/libhelper.a \
		$(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) -Ihelper $< -o $@ $(LDFLAGS) \
		$(FE_LINK) $(BUILD)/libhelper.a $(BUILD)/libsandcap.a \
		$(LIBS_FRONTEND) $(LIBS_TEST)

# Small C programs the integration and VM suites run (probes, the hostile client).
# probe-cgprotect exercises a front-end module directly.
$(BUILD)/tests/probe-cgprotect: tests/integration/probe-cgprotect.c $(FE_LIBS) \
		$(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) $< -o $@ $(LDFLAGS) $(FE_LINK) \
		$(BUILD)/libsandcap.a $(LIBS_FRONTEND)
# probe-client drives the helper through the front-end's client (frontend/cgroup/).
$(BUILD)/tests/probe-client: tests/vm/probe-client.c $(FE_LIBS) $(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_FRONTEND) $< -o $@ $(LDFLAGS) $(FE_LINK) \
		$(BUILD)/libsandcap.a $(LIBS_FRONTEND) $(LIBS_PROBE)
$(BUILD)/tests/%: tests/integration/%.c $(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_POLICY) $< -o $@ $(LDFLAGS) $(BUILD)/libsandcap.a $(LIBS_FRONTEND)
$(BUILD)/tests/hostile-client: tests/vm/hostile-core.inc
$(BUILD)/tests/%: tests/vm/%.c $(BUILD)/libsandcap.a
	@mkdir -p $(@D)
	$(E) '  CCLD   $@'
	$(Q)$(CC) $(CFLAGS) $(INC_POLICY) $< -o $@ $(LDFLAGS) $(BUILD)/libsandcap.a $(LIBS_FRONTEND) \
		$(LIBS_PROBE)

probes: $(PROBE_BIN)

# libFuzzer targets: clang only, built with every lib/ and policy/ source.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(POLICY_SRC)
	@mkdir -p $(@D)
	$(E) '  FUZZ   $@'
	$(Q)$(CLANG) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined $(DEFS) $(PKG_CFLAGS) \
		$(INC_FRONTEND) $< $(LIB_SRC) $(POLICY_SRC) -o $@ $(LIBS_FRONTEND)
# fuzz-proxy compiles the proxy's two pure files in: rebuild it when they change.
$(BUILD)/fuzz/fuzz-proxy: $(wildcard frontend/net/allow.[ch] frontend/net/proxy-parse.[ch])

FUZZ_SECONDS ?= 60
fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

check-fuzz:
	@if command -v $(CLANG) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory $(FUZZ_BIN) && sh tests/fuzz/run.sh $(BUILD)/fuzz 5; \
	else echo "check-fuzz: clang not found, fuzz smoke pass not run"; exit 1; fi

check-unit: $(UNIT_BIN)
	@sh tests/run-unit.sh $(BUILD)

check-integration: all
	@sh tests/integration/run.sh $(BUILD)

check-vm: all
	@sh tests/vm/run.sh $(BUILD)

check-python: all
	@sh tests/python/run.sh $(BUILD)

# Everything: installs missing deps, builds, runs every suite, prints one summary line.
check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all $(UNIT_BIN)
	@SANITIZE=$(SANITIZE) sh tests/run-all.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh tools/demo.sh $(BUILD)

bench:
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory all
	@sh bench/run.sh $(BUILD)

# What sandcap-helper links (its link map), counted; fails above the helper's budget.
tcb-size: $(HELPER)
	@sh tools/tcb-size.sh $(BUILD)

lint: all
	@sh tools/lint.sh $(BUILD)

# The commit-msg hook that keeps subjects to "area: summary" (CONTRIBUTING.md).
hooks:
	@hooks=$$(git rev-parse --git-path hooks) && mkdir -p "$$hooks" && \
		install -m 0755 tools/commit-msg "$$hooks/commit-msg" && \
		echo "hooks: installed $$hooks/commit-msg"

format-check:
	@clang-format --dry-run --Werror $(LIB_SRC) $(POLICY_SRC) $(FRONTEND_SRC) $(HELPER_SRC) \
		$(wildcard lib/*.h policy/*.h frontend/*.h frontend/*/*.h helper/*.h)

# Installs files only: never runs chown or setcap (packages and `make install-caps` do).
MAN_PAGES := $(wildcard docs/man/*.[158])
DOC_FILES := README.md SECURITY.md
DOC_DOCS  := $(wildcard docs/*.md)
# The systemd sandcap.service is installed for (its libsystemd, else the running one): the
# unit has DelegateSubgroup= only from 254 on, older versions warn about an unknown key.
SYSTEMD_VERSION ?= $(shell { $(PKG_CONFIG) --modversion libsystemd 2>/dev/null || \
	systemctl --version 2>/dev/null | sed -n '1s/^systemd \([0-9]*\).*/\1/p'; } | sed -n '1{s/[^0-9].*//;p;}')
SUBST := sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@DEADLINE_DIR@|$(DEADLINE_DIR)|g'
install: $(SANDCAP) $(HELPER) $(REAPER)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/sandcap $(DESTDIR)$(SYSCONFDIR)/sandcap \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(SANDCAP) $(DESTDIR)$(BINDIR)/sandcap
	install -m 0755 $(HELPER) $(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-helper
	install -m 0755 $(REAPER) $(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-reaper
	$(SUBST) packaging/sandcap-setup.in > $(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-setup
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-setup
	install -m 0644 sandbox.ini.example $(DESTDIR)$(DOCDIR)/sandbox.ini.example
	@# What the man pages cite (SECURITY.md, docs/report.md, ...), at the same relative paths.
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(DOC_DOCS) $(DESTDIR)$(DOCDIR)/docs/
	@# The live policy allows the group sandcap; never overwrite an admin's policy.
	[ -e $(DESTDIR)$(SYSCONFDIR)/sandcap/sandbox.ini ] || \
		install -m 0644 packaging/sandbox.ini $(DESTDIR)$(SYSCONFDIR)/sandcap/sandbox.ini
	for m in $(MAN_PAGES); do \
		install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/ || exit 1; done
	if [ "0$(SYSTEMD_VERSION)" -ge 254 ]; then ds='DelegateSubgroup=reaper'; \
	else ds='# DelegateSubgroup=reaper: systemd 254 and later (this is $(or $(SYSTEMD_VERSION),unknown))'; fi; \
	$(SUBST) -e "s|^@DELEGATE_SUBGROUP@\$$|$$ds|" packaging/systemd/sandcap.service.in \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/sandcap.service
	install -m 0644 packaging/systemd/sandcap.slice $(DESTDIR)$(SYSTEMDUNITDIR)/sandcap.slice
	install -m 0644 packaging/tmpfiles.d/sandcap.conf $(DESTDIR)$(TMPFILESDIR)/sandcap.conf
	install -m 0644 packaging/completion/sandcap.bash $(DESTDIR)$(BASHCOMPDIR)/sandcap

# Give the installed helper exactly its capabilities (as root).  Refuses on a filesystem
# that cannot hold them (no security xattrs) instead of leaving a helper without privilege.
install-caps:
	@sh packaging/install-caps.sh $(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-helper

# Removes everything install put, except the live policy (the admin's configuration:
# remove /etc/sandcap/sandbox.ini yourself).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sandcap \
		$(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-helper \
		$(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-reaper \
		$(DESTDIR)$(LIBEXECDIR)/sandcap/sandcap-setup $(DESTDIR)$(SYSTEMDUNITDIR)/sandcap.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/sandcap.slice $(DESTDIR)$(TMPFILESDIR)/sandcap.conf \
		$(DESTDIR)$(BASHCOMPDIR)/sandcap $(DESTDIR)$(DOCDIR)/sandbox.ini.example
	for m in $(notdir $(MAN_PAGES)); do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done
	for d in $(DOC_FILES) $(DOC_DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$$d; done
	-rmdir $(DESTDIR)$(LIBEXECDIR)/sandcap $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)

# Debian package: a clean export of the tree (git archive: tracked files only, with their
# uncommitted changes) in $(BUILD)/deb, built there by dpkg-buildpackage.
deb:
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL sh packaging/build-deb.sh $(BUILD) $(VERSION)

dist:
	@mkdir -p $(BUILD)
	git archive --format=tar.gz --prefix=sandcap-$(VERSION)/ -o $(BUILD)/sandcap-$(VERSION).tar.gz HEAD
	@echo "$(BUILD)/sandcap-$(VERSION).tar.gz"

clean:
	rm -rf build build-san

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/tests/*.d)
