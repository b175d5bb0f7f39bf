# wpfs — web page fetching system.
#
#   make            build every program into bin/
#   make test       all unit and end-to-end tests ("N passed, N failed")
#   make test SANITIZE=1   the same under ASan+UBSan (objects in build/san)
#   make fuzz       every libFuzzer target for FUZZ_SECONDS (default 60)
#   make bench      benchmarks, printing ratios against in-run baselines
#   make torture    the whole stack under random load and faults, seeded
#   make soak       the same for 30 minutes
#   make heldout    the held-out crawl of an ordinary web, 20 worlds
#   make run        redis + llfs + hlfs in the foreground
#
# Layout: common/ api/ llfs/, the gateway's layers hlfs/gw, hlfs/fetch, hlfs/sched,
# hlfs/state, hlfs/policy, the crawlers' clients/refresh, clients/loop, clients/focus,
# clients/crawl, clients/gwclient, clients/web, clients/out, clients/base, and
# tests/testweb are static libraries
# (every .c file but main.c), linked in that order, most dependent first
# (tests/e2e/layers.sh checks that no library calls one above it); a
# program is a main file listed in PROGS. Unit tests (cmocka) mirror the
# tree: tests/unit/FOLDER/FILE.c tests FOLDER/FILE.c, #includes it (so it
# reaches its static functions, and the library's copy is not linked) and
# becomes bin/test/FOLDER/FILE. Fuzz targets are tests/fuzz/fuzz_*.c.

CC       ?= cc
# Quiet by default; V=1 shows every command.
ifeq ($(V),1)
Q :=
else
Q := @
endif
SANITIZE ?= 0
FUZZ_SECONDS ?= 60

PKGS := libcurl libcares jansson hiredis libuv libmicrohttpd libidn2 \
        libpsl libzstd libbrotlienc libbrotlidec zlib libdeflate openssl libxxhash libxml-2.0 cmocka

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I. $(PKG_CFLAGS) -MMD -MP

ifeq ($(SANITIZE),1)
VARIANT := san
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined -DWPFS_DEBUG
LDFLAGS += -fsanitize=address,undefined
BIN := build/san/bin
else
VARIANT := rel
BIN := bin
endif
OBJ := build/$(VARIANT)

# Packages first: mk/deps.sh installs what mk/packages.txt lists (only when
# the list or the npm lock changed since it last ran), then the compiler
# flags are asked of pkg-config into a fragment that make includes. make
# remakes an included file before anything else and restarts with it, so
# on a fresh machine one `make` installs, then builds: no flag is read
# before its package is there, whatever -j says.
.DEFAULT_GOAL := all
DEPS_STAMP := build/.deps-stamp
PKG_MK     := build/pkg.mk
NO_DEPS_GOALS := clean
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(PKG_MK)
endif
$(DEPS_STAMP): mk/packages.txt mk/deps.sh $(wildcard package-lock.json)
	@sh mk/deps.sh
	@mkdir -p $(dir $@) && touch $@
# NO_DEPS=1: the packages are someone else's business (a container build
# installs them itself); only the flags are asked for.
$(PKG_MK): $(if $(filter 1,$(NO_DEPS)),,$(DEPS_STAMP)) mk/pkgflags.sh Makefile
	@sh mk/pkgflags.sh $@ $(PKGS)
# Snowball's stemmer (libstemmer-dev) has no pkg-config file; only what
# links the focused crawler's library needs it (the services must not load
# it: the container image does not carry it).
STEMMER_LIBS := -lstemmer
# PCRE2 (libpcre2-dev) for the crawlers' scope rules (clients/base/scope.c
# says why not libc's regex): only what links clients/base takes it, so
# the services' images need not carry it.
PCRE_LIBS := -lpcre2-8
# The services allocate with jemalloc: with glibc's malloc, hlfs spent about
# a tenth of its CPU in a crawl in malloc and free (a page-sized allocation
# per answer makes glibc consolidate its small-chunk bins each time);
# docs/benchmarks.md has the figures. Not under ASan, which must own
# malloc itself.
ifeq ($(SANITIZE),1)
MALLOC_LIBS :=
else
MALLOC_LIBS := -ljemalloc
endif
MALLOC_PROGS := hlfs llfs

# Static libraries, most dependent first on the link line.
LIBDIRS := hlfs/gw hlfs/fetch hlfs/sched hlfs/state hlfs/policy llfs api \
           clients/cli clients/refresh clients/loop clients/focus clients/part clients/crawl clients/gwclient clients/web clients/out clients/base \
           tests/testweb common
libsrc   = $(filter-out $(1)/main.c,$(wildcard $(1)/*.c))
libobj   = $(patsubst %.c,$(OBJ)/%.o,$(call libsrc,$(1)))
LIBS     := $(foreach d,$(LIBDIRS),$(OBJ)/lib$(d).a)

# Programs: bin name = main source.
PROGS := \
  llfs=llfs/main.c \
  hlfs=hlfs/main.c \
  wpfs-url=common/cli/wpfs_url.c \
  wpfs-robots=hlfs/cli/wpfs_robots.c \
  testweb=tests/testweb/main.c \
  freeport=tests/tools/freeport.c \
  wpfs-discover=clients/discover/main.c \
  wpfs-focus=clients/focus/main.c \
  wpfs-refresh=clients/refresh/main.c \
  wpfs=clients/cli/main.c
prog_src    = $(word 2,$(subst =, ,$(filter $(1)=%,$(PROGS))))
# Only programs whose main file exists yet.
PROG_NAMES := $(foreach p,$(PROGS),$(if $(wildcard $(word 2,$(subst =, ,$(p)))),$(firstword $(subst =, ,$(p)))))

UNIT_SRC  := $(shell find tests/unit -name '*.c')
UNIT_BINS := $(patsubst tests/unit/%.c,$(BIN)/test/%,$(UNIT_SRC))
# Integration test programs need servers: e2e scripts start those, then run them.
ITEST_SRC  := $(wildcard tests/integ/itest_*.c)
ITEST_BINS := $(patsubst tests/integ/%.c,$(BIN)/itest/%,$(ITEST_SRC))
# Benchmark programs (baselines, load generators), run by tests/bench/run.sh.
BENCH_SRC  := $(wildcard tests/bench/bench_*.c)
BENCH_BINS := $(patsubst tests/bench/%.c,$(BIN)/bench/%,$(BENCH_SRC))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
# The same targets without libFuzzer, replaying their corpora in make test.
REPLAY_BINS := $(patsubst tests/fuzz/%.c,$(BIN)/fuzz/%,$(FUZZ_SRC))

.PHONY: all deps test unit e2e fuzz bench run clean check-clang heldout torture soak
all: programs
programs: $(addprefix $(BIN)/,$(PROG_NAMES)) $(UNIT_BINS) $(ITEST_BINS) $(BENCH_BINS) \
          $(REPLAY_BINS)

# Check and install now, whatever the stamp says.
deps:
	@sh mk/deps.sh
	@mkdir -p $(dir $(DEPS_STAMP)) && touch $(DEPS_STAMP)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The gateway's Redis scripts are .lua files (hlfs/state/lua/), made into C
# strings at build time (mk/lua2c.sh), part of the state library.
LUA_SRC   := $(wildcard hlfs/state/lua/*.lua)
LUA_GEN   := $(OBJ)/gen/hlfs/state/lua_scripts.c
LIBEXTRA_hlfs/state := $(OBJ)/gen/hlfs/state/lua_scripts.o
$(LUA_GEN): $(LUA_SRC) mk/lua2c.sh
	@sh mk/lua2c.sh $@ hlfs/state/lua
$(OBJ)/gen/hlfs/state/lua_scripts.o: $(LUA_GEN)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@
# The same for the crawlers' coordination scripts (clients/part/lua/),
# under their own names (part_lua_*): both libraries live in one Redis.
PART_LUA_SRC := $(wildcard clients/part/lua/*.lua)
PART_LUA_GEN := $(OBJ)/gen/clients/part/part_lua.c
LIBEXTRA_clients/part := $(OBJ)/gen/clients/part/part_lua.o
$(PART_LUA_GEN): $(PART_LUA_SRC) mk/lua2c.sh
	@LUA2C_NAME=part_lua LUA2C_HEADER=clients/part/part_lua.h sh mk/lua2c.sh $@ clients/part/lua
$(OBJ)/gen/clients/part/part_lua.o: $(PART_LUA_GEN)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# A library is remade when its list of objects changes too (a file moved
# to another folder must leave the old library), not only when an object
# is newer: the list is kept beside it, rewritten only when it differs.
define LIB_RULE
$(OBJ)/lib$(1).objs: FORCE
	@mkdir -p $$(dir $$@)
	@echo '$(call libobj,$(1)) $(LIBEXTRA_$(1))' | cmp -s - $$@ || \
	  echo '$(call libobj,$(1)) $(LIBEXTRA_$(1))' >$$@
$(OBJ)/lib$(1).a: $(call libobj,$(1)) $(LIBEXTRA_$(1)) $(OBJ)/lib$(1).objs
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	$(Q)$$(AR) rcs $$@ $$(filter %.o,$$^)
endef
.PHONY: FORCE
FORCE:
$(foreach d,$(LIBDIRS),$(eval $(call LIB_RULE,$(d))))

# Each program links only the libraries it uses, in LIBDIRS order: a call
# across a boundary it should not cross fails to link. (Tests and
# benchmarks link them all.) A program is linked again when the link flags
# change (build/pkg.mk, remade with the Makefile).
CRAWLER_LIBS    := clients/loop clients/part clients/crawl clients/gwclient clients/web clients/out clients/base common
LIBS_llfs       := llfs api common
LIBS_hlfs       := hlfs/gw hlfs/fetch hlfs/sched hlfs/state hlfs/policy api common
LIBS_wpfs-url   := common
LIBS_wpfs-robots := hlfs/policy common
LIBS_testweb    := tests/testweb common
LIBS_freeport   := common
LIBS_wpfs-discover := $(CRAWLER_LIBS)
LIBS_wpfs-focus := clients/focus $(CRAWLER_LIBS)
LIBS_wpfs       := clients/cli clients/part clients/gwclient clients/out clients/base common
LIBS_wpfs-refresh := clients/refresh clients/loop clients/part clients/gwclient clients/web clients/out clients/base common
prog_libs = $(foreach d,$(filter $(or $(LIBS_$(1)),$(LIBDIRS)),$(LIBDIRS)),$(OBJ)/lib$(d).a)

define PROG_RULE
$(BIN)/$(1): $(OBJ)/$(patsubst %.c,%.o,$(call prog_src,$(1))) \
             $(call prog_libs,$(1)) \
             $(PKG_MK)
	@mkdir -p $$(dir $$@)
	@$(if $(Q),echo "  LINK    $$@")
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call prog_libs,$(1)) $$(PKG_LIBS) \
	  $(if $(filter clients/focus,$(LIBS_$(1))),$$(STEMMER_LIBS)) \
	  $(if $(filter clients/base,$(LIBS_$(1))),$$(PCRE_LIBS)) \
	  $(if $(filter $(1),$(MALLOC_PROGS)),$$(MALLOC_LIBS))
endef
$(foreach p,$(PROG_NAMES),$(eval $(call PROG_RULE,$(p))))

$(BIN)/test/%: $(OBJ)/tests/unit/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIBS) $(PKG_LIBS) $(STEMMER_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS)

# The integration programs' shared set-up (tests/integ/fixture/: the loop,
# a Redis store, the state, the scheduler's fake fetch, a fetcher, testweb
# and dnsmasq seen from the test): a library of its own, linked before
# the product's.
ITEST_FX := $(OBJ)/libtests/integ/fixture.a
$(eval $(call LIB_RULE,tests/integ/fixture))
$(BIN)/itest/%: $(OBJ)/tests/integ/%.o $(ITEST_FX) $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(ITEST_FX) $(LIBS) $(PKG_LIBS) $(STEMMER_LIBS) $(PCRE_LIBS) $(CMOCKA_LIBS)

$(BIN)/bench/%: $(OBJ)/tests/bench/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIBS) $(PKG_LIBS) $(STEMMER_LIBS) $(PCRE_LIBS)

# Every library object, as the libFuzzer link (FUZZ_LIBOBJ) takes them: a
# target defining what a library defines fails here too, in make test
# (make fuzz once stopped linking that way, unseen).
$(BIN)/fuzz/%: $(OBJ)/tests/fuzz/%.o $(OBJ)/tests/fuzz/replay.o $(LIBS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(OBJ)/tests/fuzz/replay.o -Wl,--whole-archive $(LIBS) \
	  -Wl,--no-whole-archive $(PKG_LIBS) $(STEMMER_LIBS) $(PCRE_LIBS)

# Tests: the runner starts every unit binary and every e2e script, each
# with its own timeout, and prints one "N passed, N failed" line.
test: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) tests/run.sh

unit: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) tests/run.sh unit

e2e: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) tests/run.sh e2e

# Fuzzing needs clang; libraries are rebuilt with the fuzzer's coverage.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -g -O1 -I. $(PKG_CFLAGS) \
              -fsanitize=fuzzer-no-link,address,undefined -DWPFS_FUZZ -MMD -MP
# Keep fuzz objects between runs (they are intermediates of the link).
.SECONDARY:
build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)clang $(FUZZ_CFLAGS) -c $< -o $@
FUZZ_LIBOBJ = $(patsubst %.c,build/fuzz/obj/%.o,$(foreach d,$(LIBDIRS),$(call libsrc,$(d)))) \
              build/fuzz/obj/gen/lua_scripts.o build/fuzz/obj/gen/part_lua.o
build/fuzz/gen/lua_scripts.c: $(LUA_SRC) mk/lua2c.sh
	@sh mk/lua2c.sh $@ hlfs/state/lua
build/fuzz/obj/gen/lua_scripts.o: build/fuzz/gen/lua_scripts.c
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/gen/part_lua.c: $(PART_LUA_SRC) mk/lua2c.sh
	@LUA2C_NAME=part_lua LUA2C_HEADER=clients/part/part_lua.h sh mk/lua2c.sh $@ clients/part/lua
build/fuzz/obj/gen/part_lua.o: build/fuzz/gen/part_lua.c
	@mkdir -p $(dir $@)
	$(Q)clang $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/%: build/fuzz/obj/tests/fuzz/%.o $(FUZZ_LIBOBJ)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)clang -fsanitize=fuzzer,address,undefined -o $@ $^ $(PKG_LIBS) $(STEMMER_LIBS) $(PCRE_LIBS)
fuzz: $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_BINS)

bench: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) tests/bench/run.sh

# The torture run (tests/torture/torture.sh, docs/reliability.md): seeded,
# TORTURE_SEED=n replays; make soak runs it for 30 minutes. A 60-second run
# is part of make test (tests/e2e/torture.sh).
TORTURE_SECONDS ?= 120
torture: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) TORTURE_SECONDS=$(TORTURE_SECONDS) \
	  bash tests/torture/torture.sh
soak: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) TORTURE_SECONDS=1800 \
	  bash tests/torture/torture.sh

# The held-out crawl (tests/soak/heldout_crawl.sh), HELDOUT_RUNS worlds.
HELDOUT_RUNS ?= 20
heldout: all
	@WPFS_BIN=$(CURDIR)/$(BIN) WPFS_ROOT=$(CURDIR) tests/soak/heldout.sh $(HELDOUT_RUNS)

run: all
	@WPFS_BIN=$(CURDIR)/$(BIN) deploy/local/run.sh

# The whole tree must also build warning-free with clang.
check-clang:
	$(MAKE) CC=clang VARIANT=clang OBJ=build/clang BIN=build/clang/bin programs

clean:
	rm -rf build bin

# Header dependencies of this variant only (rel, san, clang and fuzz
# objects are different files of the same sources).
-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
ifneq ($(filter fuzz build/fuzz/%,$(MAKECMDGOALS)),)
-include $(shell find build/fuzz -name '*.d' 2>/dev/null)
endif
