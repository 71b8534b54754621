# passkeyd: `make run` starts the server with embedded defaults, `make test` runs every test.
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := libssl-dev libcbor-dev libsqlite3-dev libevent-dev pkg-config
SWIFT ?= swift

.PHONY: deps build release run test test-swift bench-core clean fuzz fuzz-build fuzz-replay

# Install the Debian packages that are missing; nothing at all when everything is there.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ -z "$$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial -e auxfiles)" ]; then $(SUDO) apt-get update; fi; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	./.build/release/passkeyd serve

test: deps test-swift

test-swift:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel && $(MAKE) fuzz-replay

bench-core: deps
	$(SWIFT) build -c release --product passkeyd-bench
	./.build/release/passkeyd-bench core

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
