# Shrimp: `make run` opens the app, `make test` runs every test tier.
# Both install what they need (apt and npm packages) on a fresh Debian 12.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO          ?= go
# The sentence encoder runs on 8-bit kernels in assembly where the CPU has
# AVX-512 VNNI (backend/sentence/vnni_amd64.s; no experiment needed). On
# other CPUs, its float kernels (matmul_simd.go) need Go's SIMD experiment;
# without it portable loops run, about 3x slower. The purego tag turns the
# assembly off: test-go tests the float kernels with it, test-nocgo the
# portable loops.
export GOEXPERIMENT ?= simd
# go.mod's toolchain line (a Go with the standard library's known
# vulnerabilities fixed) is fetched from the module proxy when the
# machine's Go is older; Debian's and this project's machines default to
# GOTOOLCHAIN=local, which would ignore it.
export GOTOOLCHAIN ?= auto
BIN         := build/bin/shrimp
DEV_BIN     := build/shrimp-dev
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -w -s -X github.com/shrimp-harness/shrimp/app.Version=$(VERSION)
XVFB        := xvfb-run -a -s "-screen 0 1280x800x24"

# WebKitGTK 4.1 (Wails' webkit2_41 tag): Ubuntu 24.04 and later, Linux Mint
# 22, Fedora 40 and later and Debian 13 ship no 4.0, so a build against it
# neither installs nor builds there; Debian 12 and Ubuntu 22.04 have both.
WEBKIT_TAG  := webkit2_41
GUI_TAGS    := desktop,production,$(WEBKIT_TAG)
GUI_PKGS    := build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
TEST_PKGS   := $(GUI_PKGS) xvfb xauth xdotool imagemagick chromium jq groff-base dbus-daemon dbus-bin python3-gi gir1.2-gtk-3.0 notification-daemon x11-utils weston
NPM_STAMP   := frontend/node_modules/.installed

# The reference MCP servers from npm (pinned in internal/mcptest/npm), for
# test-mcp, test-gui and test-e2e.
MCP_NPM   := build/mcp-servers
MCP_STAMP := $(MCP_NPM)/.installed
MCP_EVERYTHING := $(MCP_NPM)/node_modules/@modelcontextprotocol/server-everything/dist/index.js

# Packaging: nfpm built from the module proxy (pinned), and the Debian
# tools that check what it makes.
NFPM      := build/tools/nfpm
PKG_PKGS  := lintian desktop-file-utils appstream imagemagick dpkg-dev fonts-dejavu-core groff-base

.PHONY: help run build fit-recall fit-tokens eval-embed package test-package test-package-debian bench-real frontend deps-gui deps-test test test-go test-nocgo test-frontend \
        test-bindings test-gui test-e2e test-mcp test-unprivileged bindings test-ollama bench fuzz clean test-space

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

run: deps-gui build ## install what is missing, build, open the window (under Xvfb without a display)
	@if [ -n "$${DISPLAY:-}" ]; then exec ./$(BIN); fi; \
	echo "make run: no DISPLAY, so the window opens inside a virtual X server (xvfb-run)."; \
	exec $(XVFB) ./$(BIN)

build: deps-gui frontend ## build the frontend and build/bin/shrimp (window and CLI in one binary)
	$(GO) build -tags $(GUI_TAGS) -buildmode=pie -ldflags "$(LDFLAGS)" -o $(BIN) .

$(NFPM):
	GOBIN=$(abspath build/tools) GOEXPERIMENT= $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

package: build $(NFPM) ## build/package/: the .deb (nfpm) and a .tar.gz of the same files, checked with lintian
	@scripts/apt-ensure.sh $(PKG_PKGS)
	scripts/package.sh $(BIN) $(NFPM) build/package

test-package: package ## install the .deb with apt, run it from PATH and under Xvfb, remove it, check nothing is left
	$(XVFB) scripts/test-package.sh build/package

test-package-debian: package ## install the .deb in a fresh Debian 13 (a debootstrap chroot, kept in ~/.cache/shrimp/debian-trixie): WebKitGTK 4.1 only, t64 libraries; open its window there
	scripts/test-package-debian.sh build/package trixie

MODEL ?=
bench-real: build ## the procedure benchmark against this machine's Ollama: make bench-real MODEL=qwen3:4b (report in build/bench/)
	@[ -n "$(MODEL)" ] || { echo "bench-real: name the model, for example make bench-real MODEL=qwen3:4b"; exit 2; }
	@mkdir -p build/bench
	$(BIN) bench procedures --tasks bench/tasks --model "$(MODEL)" --json --report build/bench/report.html | tee build/bench/runs.jsonl

deps-gui:
	@scripts/apt-ensure.sh $(GUI_PKGS) $$([ -n "$${DISPLAY:-}" ] || echo xvfb xauth)

deps-test:
	@scripts/apt-ensure.sh $(TEST_PKGS)

$(NPM_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

frontend: $(NPM_STAMP) ## build frontend/dist
	cd frontend && npm run build

# A whole test run writes about 4 GB (Go's build cache for the race,
# no-cgo and tagged builds, test folders, the package, Ollama's build);
# on a full disk it failed after 28 s, "no space left on device" buried
# in the compiler's output.
MIN_FREE_GB ?= 5
test-space:
	@scripts/check-space.sh $(MIN_FREE_GB) "$$($(GO) env GOCACHE)" "$${TMPDIR:-/tmp}" .

test: test-space deps-test test-go test-nocgo test-bindings test-frontend test-gui test-e2e test-mcp test-package test-package-debian test-ollama ## run every test tier
	@echo "make test: all tiers passed"

test-go: ## gofmt, go vet, staticcheck, govulncheck, the race-enabled Go tests, and a short pass of each fuzz target
	@unformatted="$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on: $$unformatted (run gofmt -w on them)"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(MAKE) --no-print-directory vulncheck
	$(GO) test -race ./...
	$(MAKE) --no-print-directory test-unprivileged
	$(GO) test -run '^TestShippedModelIsReproduced$$' ./scripts/fit-recall
	$(GO) test -tags purego ./backend/sentence
	$(MAKE) --no-print-directory fuzz FUZZTIME=50000x

# Tests of what a folder's permissions refuse mean what they say only
# without root's powers (CI runs as root): those packages run again as
# nobody.
UNPRIVILEGED := ./backend/undo
test-unprivileged: ## as root, the permission-dependent tests again as nobody (setpriv)
	@if [ "$$(id -u)" != 0 ]; then echo "test-unprivileged: not root, the tests above ran unprivileged already"; exit 0; fi; \
	if ! command -v setpriv >/dev/null; then echo "test-unprivileged: skipped, setpriv (util-linux) is not installed"; exit 0; fi; \
	mkdir -p build/unprivileged && chmod 755 build/unprivileged && \
	for pkg in $(UNPRIVILEGED); do \
		bin=$(abspath build/unprivileged)/$$(basename $$pkg).test; \
		$(GO) test -c -o $$bin $$pkg && chmod 755 $$bin && \
		(cd /tmp && setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env $$bin -test.count=1) || exit 1; \
	done

# make test gives the fuzzers a count of inputs, not a duration: with a
# duration, Go 1.26's fuzz coordinator can report the deadline itself as a
# failure ("context deadline exceeded", no failing input) when a loaded
# machine's worker is mid-input at the end (golang/go#75804, fixed in Go
# 1.27); it failed a fresh-clone CI run on FuzzReadRequest.
FUZZTIME ?= 2m
fuzz: ## run each fuzz target for FUZZTIME (default 2m; make test uses 50000x, a count of inputs)
	$(GO) test -run '^$$' -fuzz '^FuzzParseToolCalls$$' -fuzztime $(FUZZTIME) ./backend/model
	$(GO) test -run '^$$' -fuzz '^FuzzSpecial$$' -fuzztime $(FUZZTIME) ./backend/model
	$(GO) test -run '^$$' -fuzz '^FuzzFindSpecial$$' -fuzztime $(FUZZTIME) ./backend/model
	$(GO) test -run '^$$' -fuzz '^FuzzHarmony$$' -fuzztime $(FUZZTIME) ./backend/model
	$(GO) test -run '^$$' -fuzz '^FuzzThinkTags$$' -fuzztime $(FUZZTIME) ./backend/model
	$(GO) test -run '^$$' -fuzz '^FuzzArguments$$' -fuzztime $(FUZZTIME) ./backend/tool
	$(GO) test -run '^$$' -fuzz '^FuzzReadRequest$$' -fuzztime $(FUZZTIME) ./backend/recall
	$(GO) test -run '^$$' -fuzz '^FuzzDescribe$$' -fuzztime $(FUZZTIME) ./backend/tool/shell
	$(GO) test -run '^$$' -fuzz '^FuzzTerminal$$' -fuzztime $(FUZZTIME) ./backend/tool/shell
	$(GO) test -run '^$$' -fuzz '^FuzzPageText$$' -fuzztime $(FUZZTIME) ./backend/tool/web
	$(GO) test -run '^$$' -fuzz '^FuzzInert$$' -fuzztime $(FUZZTIME) ./backend/session
	$(GO) test -run '^$$' -fuzz '^FuzzEscape$$' -fuzztime $(FUZZTIME) ./internal/termsafe
	$(GO) test -run '^$$' -fuzz '^FuzzJail$$' -fuzztime $(FUZZTIME) ./backend/tool/files
	$(GO) test -run '^$$' -fuzz '^FuzzProtectedWrites$$' -fuzztime $(FUZZTIME) ./backend/tool/files
	$(GO) test -run '^$$' -fuzz '^FuzzString$$' -fuzztime $(FUZZTIME) ./backend/redact
	$(GO) test -run '^$$' -fuzz '^FuzzUnhide$$' -fuzztime $(FUZZTIME) ./backend/injection
	$(GO) test -run '^$$' -fuzz '^FuzzReadAnswer$$' -fuzztime $(FUZZTIME) ./backend/hooks
	$(GO) test -run '^$$' -fuzz '^FuzzEdit$$' -fuzztime $(FUZZTIME) ./internal/lineedit
	$(GO) test -run '^$$' -fuzz '^FuzzImports$$' -fuzztime $(FUZZTIME) ./backend/instructions
	$(GO) test -run '^$$' -fuzz '^FuzzRuleFile$$' -fuzztime $(FUZZTIME) ./backend/instructions
	$(GO) test -run '^$$' -fuzz '^FuzzLooseEdit$$' -fuzztime $(FUZZTIME) ./backend/tool/files
	$(GO) test -run '^$$' -fuzz '^FuzzGaps$$' -fuzztime $(FUZZTIME) ./backend/tool/files
	$(GO) test -run '^$$' -fuzz '^FuzzLineFilter$$' -fuzztime $(FUZZTIME) ./backend/mcp
	$(GO) test -run '^$$' -fuzz '^FuzzForeignConfig$$' -fuzztime $(FUZZTIME) ./backend/mcp
	$(GO) test -run '^$$' -fuzz '^FuzzImportHooks$$' -fuzztime $(FUZZTIME) ./backend/hooks
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./backend/attach
	$(GO) test -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME) ./internal/textfile
	$(GO) test -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime $(FUZZTIME) ./internal/gitignore
	$(GO) test -run '^$$' -fuzz '^FuzzForModel$$' -fuzztime $(FUZZTIME) ./internal/toolschema

test-nocgo: ## go vet and go test with CGO_ENABLED=0, no build tags and no SIMD experiment (a plain `go test` on a fresh clone); the core vetted for macOS and arm64
	CGO_ENABLED=0 GOEXPERIMENT= $(GO) vet ./...
	CGO_ENABLED=0 GOEXPERIMENT= $(GO) test -short ./...
	CGO_ENABLED=0 GOEXPERIMENT= $(GO) test -tags purego ./backend/sentence ./backend/lexicon ./backend/vectors
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet ./backend/... ./internal/... ./app/cli/...
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) vet ./backend/... ./internal/... ./app/cli/...

test-bindings: ## regenerate frontend/wailsjs and fail when it differs from what is committed
	$(MAKE) --no-print-directory bindings
	git -c core.fileMode=false diff --exit-code -- frontend/wailsjs || \
	  { echo "frontend/wailsjs is stale: run 'make bindings' and commit the result"; exit 1; }

test-frontend: $(NPM_STAMP) ## svelte-check and Vitest
	cd frontend && npm run check && npm test

test-gui: build $(MCP_STAMP) ## the real binary under Xvfb: a screenshot of every view, populated (build/smoke/), idle memory
	$(GO) build -o build/scriptedollama ./internal/ollamatest/cmd/scriptedollama
	MCP_EVERYTHING=$(abspath $(MCP_EVERYTHING)) $(XVFB) dbus-run-session -- scripts/gui-smoke.sh $(BIN) build/smoke build/scriptedollama

test-e2e: frontend $(MCP_STAMP) ## Playwright with Debian's Chromium against the dev binary's -devserver
	$(GO) build -tags dev,$(WEBKIT_TAG) -o $(DEV_BIN) .
	$(GO) build -o build/mcp-oauth-server ./scripts/mcp-oauth-server
	@# The tests' folders go in one folder of /tmp, removed after the run
	@# (outside the clone: a workspace in a git-ignored folder is not one
	@# whose changes can be undone).
	tmp=$$(mktemp -d /tmp/shrimp-e2e-run-XXXXXX) && \
	(cd frontend && TMPDIR=$$tmp MCP_EVERYTHING=$(abspath $(MCP_EVERYTHING)) MCP_OAUTH_SERVER=$(abspath build/mcp-oauth-server) npx playwright test); \
	rc=$$?; rm -rf $$tmp; exit $$rc

$(MCP_STAMP): internal/mcptest/npm/package.json internal/mcptest/npm/package-lock.json
	mkdir -p $(MCP_NPM)
	cp internal/mcptest/npm/package.json internal/mcptest/npm/package-lock.json $(MCP_NPM)/
	cd $(MCP_NPM) && npm ci --no-audit --no-fund
	@touch $@

test-mcp: $(MCP_STAMP) ## the npm tier: chats through @modelcontextprotocol/server-filesystem and server-everything (installed from npm)
	$(GO) vet -tags mcpnpm ./app/cli/
	SHRIMP_MCP_NPM=$(abspath $(MCP_NPM)) $(GO) test -tags mcpnpm -count=1 -run 'TestNPM' -v ./app/cli/

OLLAMA_PKGS := nlohmann-json3-dev libstb-dev
test-ollama: ## the real-server tier: ollama v0.24.0 (built once, cached) with scripted models; SHRIMP_SKIP_OLLAMA=1 skips
	@if [ "$${SHRIMP_SKIP_OLLAMA:-}" = 1 ]; then echo "test-ollama: skipped because SHRIMP_SKIP_OLLAMA=1"; exit 0; fi
	@scripts/apt-ensure.sh $(OLLAMA_PKGS)
	$(GO) vet -tags ollama ./app/cli/ ./internal/ollamatest/...
	$(GO) test -tags ollama -count=1 -timeout 30m -v -run 'TestReal' ./app/cli/

bindings: ## regenerate frontend/wailsjs without the Wails CLI
	$(GO) build -tags bindings -o build/bindgen .
	SHRIMP_DATA_DIR=$$(mktemp -d) ./build/bindgen >/dev/null

STUDIED_SETS = $(foreach n,_ 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31,backend/recalleval/testdata/dev$(subst _,,$(n)).jsonl)

fit-recall: ## refit recall's ranking and acceptance models (backend/recall/model.json) on the studied evaluation sets
	$(GO) run ./scripts/fit-recall $(STUDIED_SETS)

fit-tokens: frontend ## refit the prompt-size estimate (internal/tokens/weights.json) to real tokenizers' counts; prints how close it comes per kind of text
	cd scripts/fit-tokens && $(GO) run . -out ../../internal/tokens/weights.json

UNREAD_SETS = backend/recalleval/testdata/sample.jsonl $(foreach n,32 33 34 35 36 37 38 39 40 41,backend/recalleval/testdata/dev$(n).jsonl)
CROWD_SETS = backend/recalleval/testdata/sample.jsonl $(foreach n,28 29 30 31,backend/recalleval/testdata/dev$(n).jsonl)

eval-embed: ## recall with an Ollama embedding model against the built-in encoder alone: make eval-embed MODEL=nomic-embed-text
	@[ -n "$(MODEL)" ] || { echo "eval-embed: name the model, for example make eval-embed MODEL=nomic-embed-text"; exit 2; }
	@for emb in "" "$(MODEL)"; do \
	  flag=$${emb:+-embed-model $$emb}; echo "== $${emb:-built-in encoder}: the sample and the unread sets, each in its own store"; \
	  $(GO) run ./scripts/fit-recall -eval $$flag $(UNREAD_SETS) | grep 'cos=true' || exit 1; \
	  echo "== $${emb:-built-in encoder}: the sample crowded with dev28-dev31 (first line)"; \
	  $(GO) run ./scripts/fit-recall -eval -crowd 4 $$flag $(CROWD_SETS) | grep 'cos=true' | head -1 || exit 1; \
	  echo "== $${emb:-built-in encoder}: requests for work no procedure does, against every studied set's procedures (fp: the share recalled)"; \
	  $(GO) run ./scripts/fit-recall -eval -questions backend/recalleval/testdata/strangers.txt $$flag $(STUDIED_SETS) | grep 'strangers.txt.*cos=true' || exit 1; \
	done

# The checkers test-go runs, pinned so that a new release's checks cannot
# fail a fresh clone on unchanged code: staticcheck's default checks, and
# the Go vulnerability database as of a day (from the module proxy) with
# the govulncheck that reads it (scripts/vulncheck).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
VULNDB      := golang.org/x/vulndb@v0.0.0-20261105234957-e22db6528018
GOVULNCHECK := golang.org/x/vuln/cmd/govulncheck@v1.9.0

vulncheck: ## known vulnerabilities the shipped build's code reaches (govulncheck on a pinned database snapshot; accepted ones in scripts/vulncheck/accepted.txt)
	$(GO) run ./scripts/vulncheck -vulndb $(VULNDB) -govulncheck $(GOVULNCHECK) -- -tags=$(GUI_TAGS) ./...

bench: ## Go benchmarks (results go in docs/BENCHMARKS.md by hand)
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean: ## remove build outputs
	rm -rf build/bin build/smoke build/bindgen $(DEV_BIN) build/e2e-data frontend/dist
