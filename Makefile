# passkeyd: `make run` starts the demo (examples/passkeyd.json), `make test` runs every test.
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := libssl-dev libcbor-dev libsqlite3-dev libevent-dev libpq-dev libargon2-dev libcrypt-dev libcurl4-openssl-dev libicu-dev pkg-config
SWIFT ?= swift
# The browser suite (Tests/Python/browser): Debian's Chromium and chromedriver, selenium + pytest in a venv.
BROWSER_PACKAGES := chromium chromium-driver python3-venv esbuild
BROWSER_VENV := .venv-browser
PYTHON ?= /usr/bin/python3
# The test backend that verifies access tokens with PyJWT (Tests/Python/backend), in its own venv.
BACKEND_VENV := .venv-backend
# The PostgreSQL tests start throwaway clusters of Debian's server (initdb + pg_ctl) in temporary folders.
TEST_PACKAGES := postgresql pgbouncer

.PHONY: docs docs-deps test-docs client-swift-docs image image-deps test-upgrade client-swift-test test-openapi openapi-deps webhook-deps backend-deps metrics-deps mail-deps lint format test-deps deps build release run test test-swift test-browser browser-deps bench bench-core bench-server bench-nodes bench-soak bench-stall bench-peers bench-attack bench-counts clean fuzz fuzz-build fuzz-replay static install uninstall deb test-packaging packaging-deps

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

# Makes the Python venv $(1) from the requirements file $(2) when it is missing or when the requirements changed.
define python_venv
	@if [ ! -x $(1)/bin/python ] || ! cmp -s $(2) $(1)/requirements.txt; then \
	  echo "creating $(1)"; \
	  rm -rf $(1) && $(PYTHON) -m venv $(1) && \
	  $(1)/bin/pip install -q --disable-pip-version-check -r $(2) && \
	  cp $(2) $(1)/requirements.txt; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The demo: the embedded defaults plus the example's sample associated domains and authenticator names.
run: release
	./.build/release/passkeyd serve --config examples/passkeyd.json

test: deps lint test-docs test-swift client-swift-test client-swift-docs test-openapi test-browser test-packaging

# swift-format (from the toolchain) with .swift-format: `make lint` checks the tree, `make format` rewrites it.
SWIFT_SOURCES := Package.swift Sources Tests bench fuzz clients/swift/Package.swift clients/swift/Sources clients/swift/Tests \
  clients/swift/PlatformStandIns clients/swift/ByURL
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

# The documentation site (mkdocs.yml, docs/): MkDocs and its Material theme from PyPI in .venv-docs. `make docs`
# renders the HTTP API page from openapi.json and builds site/; `make test-docs` checks that page is the document's
# rendering and builds the site with --strict (a broken link or anchor fails; not --quiet, which hides the warnings
# that --strict counts).
DOCS_VENV := .venv-docs
docs: docs-deps
	$(PYTHON) Tests/Python/docs/render_openapi.py
	$(DOCS_VENV)/bin/mkdocs build --strict

test-docs: docs-deps
	$(PYTHON) Tests/Python/docs/render_openapi.py --check
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict --site-dir .build/site

docs-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(DOCS_VENV),Tests/Python/docs/requirements.txt)

# Debian's postgresql server for the tests, which make their own clusters and stop them.
test-deps:
	$(call install_missing,$(TEST_PACKAGES))

# The tests' temporary folders (theirs, SwiftPM's, their servers' and clusters') go in one folder of the run, removed
# after it whatever the outcome, so that runs leave nothing in /tmp; traversable by all, as a test cluster runs as the
# `postgres` user when the tests run as root.
test-swift: test-deps webhook-deps backend-deps metrics-deps mail-deps
	$(SWIFT) build --build-tests
	run=$$(mktemp -d /tmp/passkeyd-tests.XXXXXX) && chmod 755 "$$run" && \
	  { TMPDIR="$$run" $(SWIFT) test --skip-build --parallel; status=$$?; rm -rf "$$run"; exit $$status; }
	$(MAKE) fuzz-replay

# The Swift client package (clients/swift, a package of its own) against a real `passkeyd serve` on loopback, with the
# main package's software authenticator and Apple stand-in as the device (passkeyd-test-device); its Apple-only files
# type-checked against stand-ins of the SDK; and an app's package that adds this repository by URL and builds the
# client alone.
client-swift-test: deps
	$(SWIFT) build --product passkeyd
	$(SWIFT) build --product passkeyd-test-device
	cd clients/swift && PASSKEYD_BINARY=$(abspath .build/debug/passkeyd) PASSKEYD_TEST_DEVICE=$(abspath .build/debug/passkeyd-test-device) \
	  $(SWIFT) test
	clients/swift/PlatformStandIns/check.sh
	clients/swift/ByURL/check.sh

# The Swift client's API documentation with DocC from the toolchain (no plugin): PasskeydClient's symbol graphs,
# converted with its catalog (clients/swift/Sources/PasskeydClient/PasskeydClient.docc) into .build/client-swift-docs;
# a DocC warning (a symbol link that does not resolve) fails it.
DOCC ?= docc
CLIENT_SWIFT_SYMBOLS := $(abspath .build/client-swift-symbols)
client-swift-docs: deps
	rm -rf $(CLIENT_SWIFT_SYMBOLS) && mkdir -p $(CLIENT_SWIFT_SYMBOLS)
	cd clients/swift && $(SWIFT) build --target PasskeydClient \
	  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CLIENT_SWIFT_SYMBOLS)
	$(DOCC) convert clients/swift/Sources/PasskeydClient/PasskeydClient.docc --additional-symbol-graph-dir $(CLIENT_SWIFT_SYMBOLS) \
	  --output-path .build/client-swift-docs --fallback-display-name PasskeydClient \
	  --fallback-bundle-identifier passkeyd.PasskeydClient --warnings-as-errors

# Real requests and answers of passkeyd serve validated against its OpenAPI document (openapi-core from PyPI, in its
# own venv, made when missing or when its requirements changed).
OPENAPI_VENV := .venv-openapi
test-openapi: deps openapi-deps
	$(SWIFT) build --product passkeyd
	$(SWIFT) build --product passkeyd-test-device
	PASSKEYD_BINARY=$(abspath .build/debug/passkeyd) PASSKEYD_TEST_DEVICE=$(abspath .build/debug/passkeyd-test-device) \
	  $(OPENAPI_VENV)/bin/python -m pytest -q -p no:cacheprovider Tests/Python/openapi

openapi-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(OPENAPI_VENV),Tests/Python/openapi/requirements.txt)

# The webhook tests' receiver (Tests/Python/webhooks/receiver.py) verifies every delivery with the standardwebhooks package
# from PyPI, in its own venv.
WEBHOOK_VENV := .venv-webhooks
webhook-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(WEBHOOK_VENV),Tests/Python/webhooks/requirements.txt)

# The metrics tests read /metrics with prometheus-client's parser (Tests/Python/metrics/parse.py), in its own venv.
METRICS_VENV := .venv-metrics
metrics-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(METRICS_VENV),Tests/Python/metrics/requirements.txt)

# The mail tests' SMTP relay (Tests/Python/mail/smtp_server.py) is aiosmtpd from PyPI, in its own venv.
MAIL_VENV := .venv-mail
mail-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(MAIL_VENV),Tests/Python/mail/requirements.txt)

# python3-venv when missing; the venv of the PyJWT test backend when missing or when its requirements changed.
backend-deps:
	$(call install_missing,python3-venv)
	$(call python_venv,$(BACKEND_VENV),Tests/Python/backend/requirements.txt)

# Real-browser tests: headless Chromium with virtual authenticators drives the demo page against a
# `passkeyd serve` started by the suite (and the OpenID provider's sign-in page, with Authlib as the client app and
# passkeyd-test-device's Apple stand-in). Screenshots go to Tests/Python/browser/screenshots/ (git-ignored).
test-browser: deps browser-deps mail-deps
	$(SWIFT) build --product passkeyd
	$(SWIFT) build --product passkeyd-test-device
	PASSKEYD_TEST_DEVICE=$(abspath .build/debug/passkeyd-test-device) $(BROWSER_VENV)/bin/pytest -q Tests/Python/browser

# Chromium, chromedriver, esbuild and python3-venv when missing; the venv when missing or when requirements.txt changed.
# npm (for the web module's package test) only when no npm is there: a Node of its own (NodeSource's) carries it.
browser-deps:
	$(call install_missing,$(BROWSER_PACKAGES))
	@command -v npm >/dev/null 2>&1 || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm
	$(call python_venv,$(BROWSER_VENV),Tests/Python/browser/requirements.txt)

# Installing (docs/operate/install.md): a release binary with the Swift runtime linked in, so that it runs with
# Debian's C libraries only. It has its own build folder, so switching between it and `make release` rebuilds neither.
STATIC_SCRATCH := .build/static
STATIC_BINARY := $(STATIC_SCRATCH)/release/passkeyd
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/passkeyd
DOCDIR ?= $(PREFIX)/share/doc/passkeyd
UNITDIR ?= $(PREFIX)/lib/systemd/system
# Fixed, whatever PREFIX is: the unit's ConfigurationDirectory=passkeyd.
CONFDIR := /etc/passkeyd
# make deb: the Debian package, in DEB_OUTPUT (packaging/deb/build.sh).
DEB_OUTPUT ?= .build/deb
# An existing passkeyd binary for install, deb and image (`make deb BINARY=path`): packaged as it is, nothing rebuilt.
BINARY ?=
PACKAGED_BINARY := $(or $(BINARY),$(STATIC_BINARY))
# `static` only when no BINARY is given.
PACKAGED_BINARY_SOURCE := $(if $(BINARY),,static)
# The tests of the static binary, make install, the unit and the package: systemd-analyze, dpkg-shlibdeps, and
# systemd-nspawn for a throwaway machine that boots systemd and runs the package's service.
PACKAGING_PACKAGES := python3 systemd systemd-container dpkg-dev

static: deps
	$(SWIFT) build -c release --static-swift-stdlib --product passkeyd --scratch-path $(STATIC_SCRATCH)

# The binary, www/ and TrustAnchors/ (under DATADIR), the unit, and the example configuration with DATADIR's and
# BINDIR's paths: /etc/passkeyd/passkeyd.json only when there is none (a copy is always in DOCDIR/examples).
install: $(PACKAGED_BINARY_SOURCE)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(CONFDIR)
	install -m 0755 $(PACKAGED_BINARY) $(DESTDIR)$(BINDIR)/passkeyd
	@for folder in www TrustAnchors; do \
	  (cd $$folder && find . -type f -printf '%P\n') | sort | while read -r file; do \
	    install -D -m 0644 "$$folder/$$file" "$(DESTDIR)$(DATADIR)/$$folder/$$file" || exit 1; \
	  done || exit 1; \
	done
	sed -e 's|/usr/share/passkeyd|$(DATADIR)|g' packaging/passkeyd.json > $(DESTDIR)$(DOCDIR)/examples/passkeyd.json
	chmod 0644 $(DESTDIR)$(DOCDIR)/examples/passkeyd.json
	@if [ -e $(DESTDIR)$(CONFDIR)/passkeyd.json ]; then echo "kept the existing $(DESTDIR)$(CONFDIR)/passkeyd.json"; \
	else install -m 0644 $(DESTDIR)$(DOCDIR)/examples/passkeyd.json $(DESTDIR)$(CONFDIR)/passkeyd.json; fi
	sed -e 's|/usr/bin/passkeyd|$(BINDIR)/passkeyd|g' packaging/passkeyd.service > $(DESTDIR)$(UNITDIR)/passkeyd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/passkeyd.service
	install -m 0644 packaging/README.md $(DESTDIR)$(DOCDIR)/README.md

# Everything install wrote but the configuration in /etc/passkeyd and the data in /var/lib/passkeyd.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/passkeyd $(DESTDIR)$(UNITDIR)/passkeyd.service
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

deb: $(PACKAGED_BINARY_SOURCE)
	$(call install_missing,dpkg-dev)
	MAKE="$(MAKE)" BINARY=$(abspath $(PACKAGED_BINARY)) packaging/deb/build.sh $(DEB_OUTPUT)

# make image: the OCI image (packaging/image/build.sh) of the static binary or BINARY, tagged passkeyd:VERSION in
# buildah's storage and exported to IMAGE_OUTPUT/passkeyd-VERSION.oci.tar (for podman load / docker load).
IMAGE_OUTPUT ?= .build
IMAGE_PACKAGES := buildah podman runc
image: image-deps $(PACKAGED_BINARY_SOURCE)
	MAKE="$(MAKE)" BINARY=$(abspath $(PACKAGED_BINARY)) packaging/image/build.sh $(IMAGE_OUTPUT)

image-deps:
	$(call install_missing,$(IMAGE_PACKAGES))

# The static binary without the toolchain, make install, the unit (systemd-analyze verify) and the package, each
# in temporary folders and private mount namespaces (as root: unshare, mount).
# The image too (test_image.py): built from the same binary, run under podman (runc, host network, storage and
# containers.conf in a temporary folder) with passkeyd-test-device as the authenticator.
test-packaging: packaging-deps static
	$(SWIFT) build --product passkeyd-test-device
	PASSKEYD_BINARY=$(abspath $(STATIC_BINARY)) PASSKEYD_TEST_DEVICE=$(abspath .build/debug/passkeyd-test-device) MAKE="$(MAKE)" SWIFT="$(SWIFT)" \
	  $(PYTHON) -m unittest discover -s Tests/Python/packaging -v

packaging-deps:
	$(call install_missing,$(PACKAGING_PACKAGES) $(IMAGE_PACKAGES))

# A rolling upgrade from the previous release (built from its commit in a worktree) to this tree: two nodes on one
# PostgreSQL, ceremonies across old and new nodes and webhooks throughout (Tests/Upgrade/rolling-upgrade.sh).
test-upgrade: deps test-deps webhook-deps
	$(call install_missing,curl)
	bash Tests/Upgrade/rolling-upgrade.sh

bench-core: deps
	$(SWIFT) build -c release --product passkeyd-bench
	./.build/release/passkeyd-bench core

bench-server: deps
	$(call install_missing,wrk nginx curl)
	bash bench/server/run.sh

# Sign-in ceremonies on two passkeyd nodes sharing a throwaway PostgreSQL cluster, next to one node on SQLite.
bench-nodes: deps
	$(call install_missing,postgresql pgbouncer curl bc)
	bash bench/nodes/run.sh

# A fixed-length mixed load (SOAK_SECONDS, default 60) with error counts, p99 latency and the server's memory.
bench-soak: deps
	$(call install_missing,curl)
	bash bench/soak/run.sh

# Passkey sign-in p99 while Apple's key URL never answers and Apple sign-ins keep coming, next to the same load undisturbed.
bench-stall: deps
	$(call install_missing,curl openssl)
	bash bench/stall/run.sh

# Sign-in ceremonies on passkeyd (defaults, and metrics off) next to the Go peer in ../shared/peers/go, disk and memory.
bench-peers: deps
	$(call install_missing,curl libsqlite3-dev python3-venv)
	bash bench/peers/run.sh

# Genuine sign-in p99 while many loopback addresses flood the server with requests it must refuse, next to undisturbed.
bench-attack: deps
	$(call install_missing,curl openssl)
	bash bench/attack/run.sh

# System calls, WAL frames and SQLite statements per sign-in ceremony (strace and perf's uprobes; counts, not timings).
bench-counts: deps
	$(call install_missing,curl strace linux-perf sqlite3)
	bash bench/counts/run.sh

bench: bench-core bench-server bench-nodes bench-stall

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
