# --- make check-readers: the books in real reading systems (issue 17) ----------
# Included from the Makefile. Debian's chromium (no browser is ever downloaded:
# npm installs with --ignore-scripts and PUPPETEER_SKIP_DOWNLOAD), mupdf-tools
# and poppler-utils for the PDF; the npm packages pinned in
# tests/readers/package-lock.json. See tests/readers/run.sh and STATUS.md.
READERS_PKGS  := chromium mupdf-tools poppler-utils unzip
READERS_PROBE := test -x /usr/bin/chromium && command -v mutool && command -v pdftoppm && command -v unzip

check-readers: deps
	$(call ensure_pkgs,$(READERS_PKGS),$(READERS_PROBE))
	$(call ensure_pkgs,nodejs npm,command -v node && command -v npm)
	@$(MAKE) --no-print-directory octavo
	@OCTAVO=$(BUILD)/octavo BUILD=$(BUILD) sh tests/readers/run.sh
