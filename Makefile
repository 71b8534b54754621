# passkeyd: `make run` starts the server with embedded defaults, `make test` runs every test.
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := libssl-dev libcbor-dev libsqlite3-dev libevent-dev libpq-dev pkg-config
SWIFT ?= swift
# The browser suite (Tests/Browser): Debian's Chromium and chromedriver, selenium + pytest in a venv.
BROWSER_PACKAGES := chromium chromium-driver python3-venv
BROWSER_VENV := .venv-browser
PYTHON ?= /usr/bin/python3
# The PostgreSQL tests start throwaway clusters of Debian's server (initdb + pg_ctl) in temporary folders.
TEST_PACKAGES := postgresql

.PHONY: lint format test-deps deps build release run test test-swift test-browser browser-deps bench bench-core bench-server bench-nodes bench-soak clean fuzz fuzz-build fuzz-replay

# Installs the Debian packages of $(1) that are missing; nothing at all when everything is there. Runs
# `apt-get update` first when the package lists are missing, and again when an install fails on stale lists.
define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ -z "$$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial -e auxfiles)" ]; then $(SUDO) apt-get update; fi; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing || \
	    { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; }; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	./.build/release/passkeyd serve

test: deps lint test-swift test-browser

# swift-format (from the toolchain) with .swift-format: `make lint` checks the tree, `make format` rewrites it.
SWIFT_SOURCES := Package.swift Sources Tests bench fuzz
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

# Debian's postgresql server for the tests, which make their own clusters and stop them.
test-deps:
	$(call install_missing,$(TEST_PACKAGES))

test-swift: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel && $(MAKE) fuzz-replay

# Real-browser tests: headless Chromium with virtual authenticators drives the demo page against a
# `passkeyd serve` started by the suite. Screenshots go to Tests/Browser/screenshots/ (git-ignored).
test-browser: deps browser-deps
	$(SWIFT) build --product passkeyd
	$(BROWSER_VENV)/bin/pytest -q Tests/Browser

# Chromium, chromedriver and python3-venv when missing; the venv when missing or when requirements.txt changed.
browser-deps:
	$(call install_missing,$(BROWSER_PACKAGES))
	@if [ ! -x $(BROWSER_VENV)/bin/pytest ] || ! cmp -s Tests/Browser/requirements.txt $(BROWSER_VENV)/requirements.txt; then \
	  echo "creating $(BROWSER_VENV)"; \
	  rm -rf $(BROWSER_VENV) && $(PYTHON) -m venv $(BROWSER_VENV) && \
	  $(BROWSER_VENV)/bin/pip install -q --disable-pip-version-check -r Tests/Browser/requirements.txt && \
	  cp Tests/Browser/requirements.txt $(BROWSER_VENV)/requirements.txt; \
	fi

bench-core: deps
	$(SWIFT) build -c release --product passkeyd-bench
	./.build/release/passkeyd-bench core

bench-server: deps
	$(call install_missing,wrk nginx curl)
	bash bench/server/run.sh

# Sign-in ceremonies on two passkeyd nodes sharing a throwaway PostgreSQL cluster, next to one node on SQLite.
bench-nodes: deps
	$(call install_missing,postgresql curl)
	bash bench/nodes/run.sh

# A fixed-length mixed load (SOAK_SECONDS, default 60) with error counts, p99 latency and the server's memory.
bench-soak: deps
	$(call install_missing,curl)
	bash bench/soak/run.sh

bench: bench-core bench-server bench-nodes

clean:
	rm -rf .build

# Fuzzing (FUZZING.md): libFuzzer + ASan builds of fuzz/Targets/*.swift, each run FUZZ_SECONDS (default 60), niced.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

fuzz-build: deps
	nice -n 10 fuzz/build.sh fuzz $(FUZZ_TARGETS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_TARGETS)

# Every committed corpus and regression input through every target, without the fuzzer runtime.
fuzz-replay: deps
	nice -n 10 fuzz/build.sh replay
	fuzz/replay.sh
