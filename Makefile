# octavo — Markdown to an EPUB 3 e-book and a print PDF.
#
#   make             install missing Debian packages (as root), build, write the default book to out/
#   make check       the same, plus the test tools; run every test
#   make asan-check  the tests with -fsanitize=address,undefined
#   make tsan-check  the threaded tests and the corpus at -j4 with -fsanitize=thread
#   make install     PREFIX=/usr/local DESTDIR=

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
BOOK      := lsfmm-bpf-2023
# Where the report was first published (the text of content/$(BOOK).md is LWN's page; the
# content names no address of its own): the colophon's source and dc:source of both books.
BOOK_SOURCE := https://lwn.net/Articles/lsfmmbpf2023/

# libhyphen's patterns for the languages octavo has labels for (labels.c) that Debian has
# them for; Thai's (hyphen-th) are left out: Thai breaks between words without a hyphen
# (hyphen.c's languages set without hyphens).
HYPHEN_PKGS := hyphen-en-us hyphen-de hyphen-fr hyphen-es hyphen-it hyphen-pt-pt hyphen-pt-br \
               hyphen-nl hyphen-ru hyphen-uk hyphen-el hyphen-hi hyphen-bn
# the files they hold, one each (the probe when dpkg does not list them)
HYPHEN_DICS := en_US de_DE fr es_ES it_IT pt_PT pt_BR nl_NL ru_RU uk_UA el_GR hi_IN bn_IN
# The one list of Debian packages: what the build needs, and what only the tests need.
# The fonts-* packages hold the fallback faces of fonts/fallback.conf (the scripts and
# symbols Charis SIL and DejaVu Sans Mono lack).
BUILD_PKGS := build-essential pkg-config libglib2.0-dev libcmark-gfm-dev libcmark-gfm-extensions-dev \
              libxml2-dev libzip-dev libcairo2-dev libpango1.0-dev libharfbuzz-dev libfontconfig-dev \
              libyaml-dev libhyphen-dev $(HYPHEN_PKGS) libqpdf-dev icc-profiles-free librsvg2-dev \
              libgdk-pixbuf-2.0-dev libpng-dev fonts-noto-core fonts-noto-cjk fonts-symbola fonts-noto-color-emoji \
              libtree-sitter-dev npm fonts-liberation libdeflate-dev
TEST_PKGS  := libcmocka-dev epubcheck default-jre-headless poppler-utils qpdf python3 zip unzip valgrind \
              mupdf-tools

# pkg-config modules (hyphen has no .pc file; its header is probed directly).
PC_MODULES := glib-2.0 libcmark-gfm libxml-2.0 libzip cairo pangocairo pangoft2 harfbuzz harfbuzz-subset \
              fontconfig yaml-0.1 libqpdf zlib libdeflate librsvg-2.0 gdk-pixbuf-2.0 libpng tree-sitter

CC       ?= cc
CSTD     := -std=gnu11
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter
OPT      ?= -O2 -g
SAN      ?=
# libhyphen cannot tell its version at run time: --version shows the package's.
HYPHEN_VERSION := $(shell dpkg-query -W -f='$${Version}' libhyphen0 2>/dev/null)
CPPFLAGS += -DOCTAVO_VERSION='"$(VERSION)"' -DOCTAVO_HYPHEN_VERSION='"$(HYPHEN_VERSION)"' -D_GNU_SOURCE -Isrc \
            -DOCTAVO_SRCDIR='"$(CURDIR)"' -DOCTAVO_DATADIR='"$(PREFIX)/share/octavo"'
# gdk-pixbuf and librsvg are not linked: src/imagelibs.c opens them (GModule)
# when a book has a JPEG, GIF or SVG, so that other books do not load them;
# nor is libqpdf: src/qpdflib.c opens it (by the soname found here) when a
# PDF is written.
PC_LAZY    := librsvg-2.0 gdk-pixbuf-2.0 libqpdf
PKG_CFLAGS = $(shell pkg-config --cflags $(PC_MODULES) gmodule-2.0 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(filter-out $(PC_LAZY),$(PC_MODULES)) gmodule-2.0 2>/dev/null) \
             -lhyphen -lm
QPDF_SONAME := $(shell objdump -p "$$(pkg-config --variable=libdir libqpdf 2>/dev/null)/libqpdf.so" 2>/dev/null | \
                 awk '$$1 == "SONAME" { print $$2 }')
CPPFLAGS += $(if $(QPDF_SONAME),-DOCTAVO_QPDF_SONAME='"$(QPDF_SONAME)"')
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(SAN) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP

SRCS     := $(wildcard src/*.c src/layout/*.c)
# The tree-sitter grammars of src/highlight.c (grammars/): fetched once by
# grammars/fetch.sh with npm, compiled here, in one place for every build
# (the sanitizer and fuzz builds link the same objects: third-party C,
# compiled once, warnings off).
TS_DIR   := build/grammars
TS_SRCS  := $(addprefix $(TS_DIR)/, rust/src/parser.c rust/src/scanner.c c/src/parser.c \
              cpp/src/parser.c cpp/src/scanner.c python/src/parser.c python/src/scanner.c \
              javascript/src/parser.c javascript/src/scanner.c \
              typescript/typescript/src/parser.c typescript/typescript/src/scanner.c \
              typescript/tsx/src/parser.c typescript/tsx/src/scanner.c \
              go/src/parser.c java/src/parser.c bash/src/parser.c bash/src/scanner.c \
              toml/src/parser.c toml/src/scanner.c json/src/parser.c yaml/src/parser.c \
              yaml/src/scanner.c html/src/parser.c html/src/scanner.c xml/xml/src/parser.c \
              xml/xml/src/scanner.c css/src/parser.c css/src/scanner.c sql/src/parser.c \
              sql/src/scanner.c markdown/tree-sitter-markdown/src/parser.c \
              markdown/tree-sitter-markdown/src/scanner.c \
              markdown/tree-sitter-markdown-inline/src/parser.c \
              markdown/tree-sitter-markdown-inline/src/scanner.c queries.c)
TS_OBJS  := $(TS_SRCS:.c=.o)
C_OBJS   := $(SRCS:src/%.c=$(BUILD)/obj/%.o)
OBJS     := $(C_OBJS) $(TS_OBJS)
LIB_OBJS := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps test-deps octavo book check asan-check tsan-check test clean install format fuzz bench bench-peers \
        check-readers

# deps first, then the build in a second make: under -j the compiler must not run
# while apt-get is still installing the headers.
all: deps
	@$(MAKE) --no-print-directory octavo book

octavo: $(BUILD)/octavo

# --- dependencies -----------------------------------------------------------
# Checks with pkg-config; as root with apt-get installs what is missing, else
# prints the exact apt-get line and stops.
define ensure_pkgs
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ] && ! { $(2); } >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "octavo: installing:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "octavo: missing packages; run as root:"; \
	    echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endef

BUILD_PROBE := pkg-config --exists $(PC_MODULES) && test -f /usr/include/hyphen.h && \
               $(foreach d,$(HYPHEN_DICS),test -f /usr/share/hyphen/hyph_$(d).dic &&) \
               test -f /usr/share/color/icc/sRGB.icc && command -v cc && \
               test -f /usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc && \
               test -f /usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf && \
               test -f /usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf && \
               test -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf && command -v npm
TEST_PROBE  := pkg-config --exists cmocka && test -f /usr/share/java/epubcheck.jar && command -v java && \
               command -v pdftotext && command -v qpdf && command -v python3 && command -v unzip && command -v zip && \
               command -v mutool

deps:
	$(call ensure_pkgs,$(BUILD_PKGS),$(BUILD_PROBE))

test-deps: deps
	$(call ensure_pkgs,$(TEST_PKGS),$(TEST_PROBE))

# --- build ------------------------------------------------------------------
Q ?= @
$(BUILD)/octavo: $(OBJS)
	@echo "  LD  $@"
	$(Q)$(CC) $(SAN) -o $@ $^ $(PKG_LIBS) $(LDFLAGS)

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj $(BUILD)/obj/layout
	@echo "  CC  $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(BUILD)/tests
	@echo "  CC  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(shell pkg-config --cflags cmocka 2>/dev/null) -o $@ $< $(LIB_OBJS) \
	  $(PKG_LIBS) $(shell pkg-config --libs cmocka $(PC_LAZY) 2>/dev/null) $(LDFLAGS)

$(BUILD)/obj $(BUILD)/obj/layout $(BUILD)/tests out:
	mkdir -p $@

$(TS_DIR)/.fetched: grammars/grammars.lock grammars/queries.list grammars/fetch.sh
	@echo "  NPM grammars/grammars.lock"
	$(Q)sh grammars/fetch.sh $(TS_DIR) && touch $@

$(TS_SRCS): $(TS_DIR)/.fetched
	@test -f $@

$(TS_DIR)/%.o: $(TS_DIR)/%.c $(TS_DIR)/.fetched
	@echo "  CC  $<"
	$(Q)$(CC) -std=gnu11 -O2 -w -c -o $@ $<

-include $(C_OBJS:.o=.d) $(UNIT_BINS:=.d)

# --- the default book ---------------------------------------------------------
BOOK_DEPS := content/$(BOOK).md $(wildcard styles/*) $(wildcard fonts/*)

book: out/$(BOOK).epub out/$(BOOK).pdf out/$(BOOK)-handout.pdf

out/$(BOOK).epub out/$(BOOK).pdf &: $(BUILD)/octavo $(BOOK_DEPS) | out
	$(BUILD)/octavo --smart -M source=$(BOOK_SOURCE) content/$(BOOK).md -o out/$(BOOK).epub -o out/$(BOOK).pdf

# the same report as a handout: a title block on page 1, the sections running on
out/$(BOOK)-handout.pdf: $(BUILD)/octavo $(BOOK_DEPS) | out
	$(BUILD)/octavo --smart --layout handout -M source=$(BOOK_SOURCE) content/$(BOOK).md -o $@

# --- tests ----------------------------------------------------------------------
test: $(BUILD)/octavo $(UNIT_BINS)
	@OCTAVO=$(BUILD)/octavo BUILD=$(BUILD) sh tests/run.sh

check: test-deps
	@$(MAKE) --no-print-directory octavo $(UNIT_BINS)
	@$(MAKE) --no-print-directory test

# Leaks inside fontconfig's and pango's process-wide caches and cairo's font subsetter are not
# ours: see tests/lsan.supp. fast_unwind_on_malloc=0: Debian's libraries have no frame
# pointers, so only the slow unwinder sees the caller a suppression names (as for fuzz).
# HOSTILE_SCALE=0.1: t-hostile's generated inputs at a tenth of their size (the same shapes;
# at full size three of them need over 900 s each under the sanitizers).
asan-check: test-deps
	@HOSTILE_SCALE=0.1 ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" test

# ThreadSanitizer over what runs threads (tests/tsan.sh): t-threads, t-stream and every corpus
# book at -j4, in a build of its own. octavo's locks are POSIX's, which TSan sees; the reports
# from inside libraries that order their threads with what TSan cannot see (GLib's futex
# mutexes, fontconfig's atomics) are named in tests/tsan.supp, each with why.
TSAN_BUILD := build-tsan
tsan-check: test-deps
	@$(MAKE) --no-print-directory BUILD=$(TSAN_BUILD) OPT="-O1 -g" SAN="-fsanitize=thread" octavo
	@OCTAVO=$(TSAN_BUILD)/octavo BUILD=$(TSAN_BUILD) sh tests/tsan.sh

# --- fuzzing (clang's libFuzzer; outside CI) ------------------------------------
# fast_unwind_on_malloc=0: Debian's GLib has no frame pointers, so the fast
# unwinder stops at g_malloc and a leak report shows no caller: then the
# suppressions of tests/lsan.supp (pango's and fontconfig's process-wide
# caches) cannot match, and a cache pango fills through GLib reads as a leak
# (found so: tests/hostile/fuzz-pdf-leak-1.md). Slower, but every report
# names its caller.
FUZZ_PKGS    := clang libclang-rt-14-dev
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build-fuzz
FUZZ_FLAGS   := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := fuzz_epub fuzz_pdf

fuzz:
	$(call ensure_pkgs,$(FUZZ_PKGS),command -v clang && test -d /usr/lib/llvm-14/lib/clang)
	@$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) OPT="-O1 -g" SAN="$(FUZZ_FLAGS)" \
	  $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus-$$t; \
	  echo "== $$t for $(FUZZ_SECONDS) s"; \
	  OCTAVO_DATADIR=$(CURDIR) ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  $(FUZZ_BUILD)/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=200000 -timeout=30 \
	    -artifact_prefix=fuzz/crash-$$t- fuzz/corpus-$$t fuzz/seeds || exit 1; \
	done

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(LIB_OBJS)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(PKG_LIBS)

# --- install, clean, format -----------------------------------------------------
install: $(BUILD)/octavo
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/octavo/fonts $(DESTDIR)$(PREFIX)/share/octavo/styles
	install -m 755 $(BUILD)/octavo $(DESTDIR)$(PREFIX)/bin/octavo
	install -m 644 fonts/* $(DESTDIR)$(PREFIX)/share/octavo/fonts/
	install -m 644 styles/* $(DESTDIR)$(PREFIX)/share/octavo/styles/
	if [ -f man/octavo.1 ]; then install -d $(DESTDIR)$(PREFIX)/share/man/man1 && \
	  install -m 644 man/octavo.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi

clean:
	rm -rf build build-asan build-tsan build-fuzz out

format:
	clang-format -i src/*.c src/*.h src/layout/*.c src/layout/*.h tests/unit/*.c

# --- benchmark (outside CI): time and memory as ratios to the libraries' floor --
bench: $(BUILD)/octavo $(BUILD)/obj/fonts.o
	@mkdir -p $(BUILD)/bench
	$(Q)$(CC) $(CFLAGS_ALL) -o $(BUILD)/bench/floor bench/floor.c $(BUILD)/obj/fonts.o $(PKG_LIBS) $(LDFLAGS)
	@BUILD=$(BUILD) BENCH_FROM_MAKE=1 sh bench/run.sh

# The peers bench/run.sh measures beside octavo when they are there: pandoc (EPUB) and
# pandoc + WeasyPrint (PDF), Debian's packages only.
PEER_PKGS := pandoc weasyprint
bench-peers:
	$(call ensure_pkgs,$(PEER_PKGS),command -v pandoc && command -v weasyprint)

include tests/readers/readers.mk
