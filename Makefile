# roofplan — GNU make. `make run` builds (installing missing Debian packages)
# and writes the default report into out/; `make test` runs the whole suite
# under AddressSanitizer and UndefinedBehaviorSanitizer. `make V=1` echoes.

CC      ?= cc
VERSION := 0.1.0
BUILD   := build
Q       := $(if $(V),,@)

PKGS    := xlsxwriter zlib minizip inih libmd libcjson yajl
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wconversion \
           -Wstrict-prototypes -Wmissing-prototypes -Werror
# No path is built in: the binary finds data/ and templates/ beside it
# (src/cli/cli.c, own_directory).
DEFS    := -D_XOPEN_SOURCE=700 -DROOFPLAN_VERSION=\"$(VERSION)\"
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lm -pthread

# Link-time optimisation: the sweep's per-plan path crosses modules
# (plan_schedule_of, memory, comm, terms), and inlining across them saves
# about 8% of its instructions; the arithmetic is unchanged (ISO C: no
# contraction into FMA), so the output is the same bit for bit.
LTO           := -flto=auto
RELEASE_FLAGS := -std=c11 -O2 $(LTO) -pthread $(WARN) $(DEFS) -MMD -MP
DEBUG_FLAGS   := -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
                 -fsanitize=address,undefined -fno-sanitize-recover=all \
                 $(WARN) $(DEFS) -MMD -MP
DEBUG_LDFLAGS := -fsanitize=address,undefined -pthread

# src/ is one folder per stage (docs/ARCHITECTURE.md); headers are included
# by name, so every stage folder is on the include path.
SRC_DIRS := $(sort $(dir $(wildcard src/*/*.c src/*/*/*.c)))
SRC      := $(wildcard src/*.c src/*/*.c src/*/*/*.c)
HDR      := $(wildcard src/*.h src/*/*.h src/*/*/*.h)
INC      := -Isrc $(patsubst %/,-I%,$(SRC_DIRS))
LIB_SRC  := $(filter-out src/main.c,$(SRC))
TESTS    := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
# The slow tier (make test-slow, part of make test): whole sweeps checked
# plan by plan, kept out of the unit tests' time.
SLOW     := $(patsubst tests/slow/%.c,%,$(wildcard tests/slow/test_*.c))

REL_OBJ  := $(patsubst src/%.c,$(BUILD)/release/%.o,$(SRC))
DBG_OBJ  := $(patsubst src/%.c,$(BUILD)/debug/%.o,$(SRC))
DBG_LIB  := $(filter-out $(BUILD)/debug/main.o,$(DBG_OBJ))

.PHONY: all debug run test unit test-slow integration deps deps-test format bench layers links tsan analyze \
        check-format clean plots golden print-pkgs install

all: $(BUILD)/roofplan

# Installs what is missing (or says how, when not root); runs once per build dir.
$(BUILD)/.deps: scripts/deps.sh
	$(Q)mkdir -p $(BUILD)
	$(Q)scripts/deps.sh build
	$(Q)pkg-config --exists --print-errors $(PKGS)
	$(Q)touch $@

deps: $(BUILD)/.deps

deps-test:
	$(Q)scripts/deps.sh test

# The pkg-config modules linked (scripts/check-deps.sh reads them).
print-pkgs:
	@echo $(PKGS)

$(BUILD)/release/%.o: src/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(RELEASE_FLAGS) $(INC) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/debug/%.o: src/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (asan,ubsan) $<")
	$(Q)$(CC) $(DEBUG_FLAGS) $(INC) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/roofplan: $(REL_OBJ)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) -O2 $(LTO) $(REL_OBJ) $(PKG_LIBS) $(LDFLAGS) -o $@

debug: $(BUILD)/debug/roofplan

$(BUILD)/debug/roofplan: $(DBG_OBJ)
	@$(if $(V),,echo "  LD (asan,ubsan) $@")
	$(Q)$(CC) $(DEBUG_LDFLAGS) $(DBG_OBJ) $(PKG_LIBS) -o $@

$(BUILD)/debug/tests/%.o: tests/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (test) $<")
	$(Q)$(CC) $(DEBUG_FLAGS) $(INC) $(PKG_CFLAGS) \
	    $(shell pkg-config --cflags cmocka) -c $< -o $@

$(BUILD)/debug/test_%: $(BUILD)/debug/tests/test_%.o \
                       $(BUILD)/debug/tests/util.o \
                       $(BUILD)/debug/tests/util_xlsx.o $(DBG_LIB)
	@$(if $(V),,echo "  LD (test) $@")
	$(Q)$(CC) $(DEBUG_LDFLAGS) $^ $(PKG_LIBS) \
	    $(shell pkg-config --libs cmocka) -o $@

$(BUILD)/debug/slow/tests/%.o: tests/slow/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (test) $<")
	$(Q)$(CC) $(DEBUG_FLAGS) $(INC) -Itests $(PKG_CFLAGS) \
	    $(shell pkg-config --cflags cmocka) -c $< -o $@

$(BUILD)/debug/slow/test_%: $(BUILD)/debug/slow/tests/test_%.o \
                            $(BUILD)/debug/tests/util.o \
                            $(BUILD)/debug/tests/util_xlsx.o $(DBG_LIB)
	@$(if $(V),,echo "  LD (test) $@")
	$(Q)$(CC) $(DEBUG_LDFLAGS) $^ $(PKG_LIBS) \
	    $(shell pkg-config --libs cmocka) -o $@

run: $(BUILD)/roofplan
	$(Q)$(BUILD)/roofplan report -o out

# $(call run_tests,BINARIES): each cmocka binary under ASan and UBSan,
# its output in build/NAME.log (shown whole when it fails).
define run_tests
	$(Q)fail=0; for t in $(1); do \
	    echo "== $$t"; \
	    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	        $$t >$(BUILD)/$$(basename $$t).log 2>&1 || { fail=1; \
	        cat $(BUILD)/$$(basename $$t).log; }; \
	    tail -n 1 $(BUILD)/$$(basename $$t).log; \
	done; exit $$fail
endef

unit: $(addprefix $(BUILD)/debug/,$(TESTS))
	$(call run_tests,$^)

test-slow: $(addprefix $(BUILD)/debug/slow/,$(SLOW))
	$(call run_tests,$^)

# An LD_PRELOAD library that fails the N-th write, close or rename
# (tests/integration/70_transaction.sh).
$(BUILD)/faultinject.so: tests/faultinject.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -O1 -shared -fPIC -Wall -Wextra -Werror $< -o $@ -ldl

integration: $(BUILD)/debug/roofplan $(BUILD)/roofplan $(BUILD)/faultinject.so
	$(Q)ROOFPLAN=$(CURDIR)/$(BUILD)/debug/roofplan \
	    ROOFPLAN_RELEASE=$(CURDIR)/$(BUILD)/roofplan \
	    FAULTINJECT=$(CURDIR)/$(BUILD)/faultinject.so \
	    tests/run_integration.sh

# `make test` installs what the tests run (python3, gnumeric, ...) first, so
# the README's command works on a fresh machine.
test: deps-test
	$(Q)$(MAKE) --no-print-directory layers links unit integration test-slow

# The include rule of src/'s stage folders (docs/ARCHITECTURE.md): a folder
# includes only from folders below it, and headers form no circle; and the
# map of tests/ onto those stages (tests/README.md) is the tree's.
layers:
	$(Q)/usr/bin/python3 scripts/check-layers.py src
	$(Q)/usr/bin/python3 scripts/check-tests-map.py

# The documentation's links and paths (README.md, docs/*.md): each relative
# link and each repository path it names exists, anchors included, and no
# link leaves the repository (scripts/check-links.py).
links:
	$(Q)/usr/bin/python3 scripts/check-links.py

# ThreadSanitizer: the tool built with -fsanitize=thread, then a sweep on
# four threads (rank.c's workers, the bounded heaps and the spill) and the
# same sweep on one thread: a race is a failure, and the two plans.csv
# must be identical (the output does not depend on the threads).
TSAN_FLAGS := -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
              -fsanitize=thread $(WARN) $(DEFS) -MMD -MP
TSAN_OBJ   := $(patsubst src/%.c,$(BUILD)/tsan/%.o,$(SRC))
TSAN_SWEEP := --set space.tp=1,2 --set space.pp=8,16 --set space.ep=8,64 \
              --set space.zero=1,3 --set space.mbs=1,2

$(BUILD)/tsan/%.o: src/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (tsan) $<")
	$(Q)$(CC) $(TSAN_FLAGS) $(INC) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tsan/roofplan: $(TSAN_OBJ)
	@$(if $(V),,echo "  LD (tsan) $@")
	$(Q)$(CC) -fsanitize=thread -pthread $(TSAN_OBJ) $(PKG_LIBS) -o $@

tsan: $(BUILD)/tsan/roofplan
	$(Q)rm -rf $(BUILD)/tsan/out4 $(BUILD)/tsan/out1
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(BUILD)/tsan/roofplan \
	    report -q --no-charts --threads 4 $(TSAN_SWEEP) -o $(BUILD)/tsan/out4 \
	    >$(BUILD)/tsan/out4.txt
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(BUILD)/tsan/roofplan \
	    report -q --no-charts --threads 1 $(TSAN_SWEEP) -o $(BUILD)/tsan/out1 \
	    >$(BUILD)/tsan/out1.txt
	$(Q)cmp $(BUILD)/tsan/out4/plans.csv $(BUILD)/tsan/out1/plans.csv
	@echo "tsan: the sweep on 4 threads ran without a race; plans.csv as on 1"

# Static analysis (Debian's cppcheck): warnings, portability and
# performance checks over src/, a clean baseline (any finding fails; a
# false one is suppressed inline, with its reason, by
# `// cppcheck-suppress id`).
analyze:
	$(Q)cppcheck -q -j2 --std=c11 --enable=warning,portability,performance \
	    --error-exitcode=1 --inline-suppr $(DEFS) $(INC) src
	@echo "analyze: cppcheck found nothing"

# Release-build benchmarks (several runs, median and spread) -> out/bench.txt
bench: $(BUILD)/roofplan
	$(Q)/usr/bin/python3 scripts/bench.py

# Rewrites tests/golden/ from the current templates and code (the chart
# scripts and data; the workbook's sheet dumps in tests/golden/sheets/);
# review the diff before committing it.
golden: $(BUILD)/debug/test_plot_out $(BUILD)/debug/roofplan
	$(Q)mkdir -p tests/golden/sheets
	$(Q)ROOFPLAN_GOLDEN_UPDATE=1 $(BUILD)/debug/test_plot_out >/dev/null
	$(Q)ROOFPLAN_GOLDEN_UPDATE=1 ROOFPLAN=$(CURDIR)/$(BUILD)/debug/roofplan \
	    tests/run_integration.sh tests/integration/70_workbook.sh
	$(Q)git status --short tests/golden

format:
	$(Q)clang-format -i $(SRC) $(HDR) tests/*.c tests/*.h tests/slow/*.c

check-format:
	$(Q)clang-format --dry-run --Werror $(SRC) $(HDR) tests/*.c tests/*.h \
	    tests/slow/*.c

plots:
	$(Q)for f in out/*.gp; do (cd out && gnuplot "$$(basename $$f)") || exit 1; done

# `make install PREFIX=/opt/roofplan`: the binary in PREFIX/bin, data and
# templates in PREFIX/share/roofplan (the binary finds them beside it).
PREFIX  ?= /usr/local
install: $(BUILD)/roofplan
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/roofplan
	$(Q)install -m 755 $(BUILD)/roofplan $(DESTDIR)$(PREFIX)/bin/roofplan
	$(Q)rm -rf $(DESTDIR)$(PREFIX)/share/roofplan/data \
	    $(DESTDIR)$(PREFIX)/share/roofplan/templates
	$(Q)cp -R data templates $(DESTDIR)$(PREFIX)/share/roofplan/

clean:
	$(Q)rm -rf $(BUILD)

.SECONDARY:

-include $(wildcard $(BUILD)/release/*.d $(BUILD)/release/*/*.d \
    $(BUILD)/tsan/*.d $(BUILD)/tsan/*/*.d $(BUILD)/tsan/*/*/*.d \
    $(BUILD)/release/*/*/*.d $(BUILD)/debug/*.d $(BUILD)/debug/*/*.d \
    $(BUILD)/debug/*/*/*.d $(BUILD)/debug/tests/*.d \
    $(BUILD)/debug/slow/tests/*.d)

# ---- Fuzzing (libFuzzer; clang) ----
# `make fuzz` builds tests/fuzz/fuzz_*.c into build/fuzz/ and runs each
# target for FUZZ_SECONDS on a copy of its corpus (tests/fuzz/corpus/T/
# is never grown automatically: new inputs stay in build/fuzz/work/T/;
# crashes go to build/fuzz/artifacts/T/). `make fuzz-regress` runs each
# target once over the saved corpus only. `make fuzz-ci` is what CI runs:
# each target from a fresh copy of its saved corpus with a fixed seed and
# a fixed number of runs (FUZZ_CI_RUNS; fewer for the slow eval target):
# a bounded try, nearly the same each time (libFuzzer is not fully
# repeatable); the exploring, randomly seeded `make fuzz` is for finding
# new inputs.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SEED    ?= 1
FUZZ_CI_RUNS ?= 40000
FUZZ_CI_RUNS_fuzz_eval := 4000
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(filter-out fuzz_util,$(FUZZ_TARGETS))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_FLAGS   := -std=c11 -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) \
                $(WARN) $(DEFS) -MMD -MP
# The library goes into an archive, so a target links only the modules it
# reaches. report.c is left out while clang -Wsign-conversion rejects it.
FUZZ_SKIP    :=
FUZZ_LIB_OBJ := $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,\
                $(filter-out $(FUZZ_SKIP),$(LIB_SRC)))
FUZZ_BINS    := $(addprefix $(FUZZ_DIR)/,$(FUZZ_TARGETS))
FUZZ_RUN     := UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                ASAN_OPTIONS=detect_leaks=1

.PHONY: fuzz fuzz-build fuzz-regress fuzz-ci

$(FUZZ_DIR)/obj/%.o: src/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (fuzz) $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(INC) $(PKG_CFLAGS) \
	    -c $< -o $@

$(FUZZ_DIR)/obj/tests/%.o: tests/fuzz/%.c | $(BUILD)/.deps
	$(Q)mkdir -p $(@D)
	@$(if $(V),,echo "  CC (fuzz) $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(INC) \
	    $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/libroofplan.a: $(FUZZ_LIB_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz_%.o \
                    $(FUZZ_DIR)/obj/tests/fuzz_util.o $(FUZZ_DIR)/libroofplan.a
	@$(if $(V),,echo "  LD (fuzz) $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $^ $(PKG_LIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# $(call fuzz_each,KIND): every target on build/fuzz/KIND/T, filled and
# given its arguments ($$args) by FUZZ_PREPARE_KIND; log build/fuzz/T.KIND.log.
define fuzz_each
	$(Q)for t in $(FUZZ_TARGETS); do \
	    work=$(FUZZ_DIR)/$(1)/$$t; art=$(FUZZ_DIR)/artifacts/$$t/; \
	    log=$(FUZZ_DIR)/$$t.$(1).log; \
	    mkdir -p $$art; $(FUZZ_PREPARE_$(1)); \
	    echo "== $$t: $$args"; \
	    $(FUZZ_RUN) $(FUZZ_DIR)/$$t $$args -timeout=10 \
	        -dict=tests/fuzz/roofplan.dict -artifact_prefix=$$art $$work \
	        >$$log 2>&1 || { tail -n 60 $$log; exit 1; }; \
	    grep -E '^(Done|#[0-9]+ +DONE)' $$log | tail -n 1; \
	done
endef
# make fuzz: the work corpus grows from run to run
FUZZ_PREPARE_work = mkdir -p $$work; \
    cp -n tests/fuzz/corpus/$$t/* $$work/ 2>/dev/null; \
    args="-max_total_time=$(FUZZ_SECONDS)"
# make fuzz-ci: a fresh copy of the saved corpus each time
FUZZ_PREPARE_ci = rm -rf $$work; mkdir -p $$work; \
    cp tests/fuzz/corpus/$$t/* $$work/; runs=$(FUZZ_CI_RUNS); \
    case $$t in fuzz_eval) runs=$(FUZZ_CI_RUNS_fuzz_eval);; esac; \
    args="-seed=$(FUZZ_SEED) -runs=$$runs"

fuzz: fuzz-build
	$(call fuzz_each,work)

fuzz-ci: fuzz-build
	$(call fuzz_each,ci)

fuzz-regress: fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do \
	    echo "== $$t over tests/fuzz/corpus/$$t"; \
	    $(FUZZ_RUN) $(FUZZ_DIR)/$$t -runs=0 tests/fuzz/corpus/$$t \
	        >$(FUZZ_DIR)/$$t.regress.log 2>&1 || { \
	        tail -n 60 $(FUZZ_DIR)/$$t.regress.log; exit 1; }; \
	done

-include $(wildcard $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d \
    $(FUZZ_DIR)/obj/*/*/*.d)
