# Two commands for a newcomer: `make run` and `make test` (README).
.PHONY: build run test lint typecheck depcruise biome openapi-lint console-types runbook-schema case-report-schema format bench bench-quick migrate console

node_modules: package-lock.json
	npm install --no-audit --no-fund
	@touch node_modules

# The web console (console/, docs/console.md), rebuilt when its sources change.
CONSOLE_SOURCES := $(shell find console/src -type f) console/index.html console/vite.config.ts
console/dist/index.html: node_modules $(CONSOLE_SOURCES)
	npx vite build console

console: console/dist/index.html

# The compiled service (tools/build.mjs): bin/svc.js runs dist/svc.js, never TypeScript.
SERVICE_SOURCES := $(shell find domain projections adapters runtime -name '*.ts') tools/build.mjs package.json
dist/svc.js: node_modules $(SERVICE_SOURCES)
	node tools/build.mjs

build: dist/svc.js

run: node_modules console build
	node bin/svc.js serve

migrate: build
	node bin/svc.js migrate

typecheck: node_modules
	npx tsc --noEmit
	npx tsc --noEmit -p console

depcruise: node_modules
	npx depcruise --config .dependency-cruiser.cjs domain projections adapters runtime tests bench console/src

# The formatter check and the linter (biome.json); `make format` rewrites the files.
biome: node_modules
	npx biome ci .

format: node_modules
	npx biome check --write .

# Redocly's recommended rules over the served document (redocly.yaml); no telemetry, no update check.
openapi-lint: build
	node bin/svc.js openapi | REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint

# The console's API types from the served document (console/api-types.ts); make test fails when they drift.
console-types: build
	node bin/svc.js openapi | node --import tsx console/api-types.ts

# The runbook JSON Schema's repository copy (docs/configuration.md "Runbook editor support"); make test fails when it drifts.
runbook-schema: build
	node bin/svc.js runbook-schema > docs/runbook.schema.json

# The case report's JSON Schema (docs/configuration.md "Case report"); make test fails when it drifts.
case-report-schema: build
	node bin/svc.js case-report-schema > docs/case-report.schema.json

lint: typecheck depcruise biome openapi-lint

# The checks and the console build run two at a time (their output kept per target), then the suite.
test: node_modules
	$(MAKE) --no-print-directory --jobs=2 --output-sync=target lint console
	npx vitest run

# Every bench but memory, which measures its own process's heap (bench/memory.ts).
BENCHES := alert-intake event-store-append case-list case-bulk peer-search search runbook-engine chain-verify custom-action \
  containment webhook-runs console-case-list restart

bench: node_modules console build
	for b in $(BENCHES) memory; do node --import tsx bench/$$b.ts || exit 1; done

# Every bench once, smaller and shorter (CI prints it on both engines; figures are rougher).
bench-quick: export BENCH_ROUNDS = 1
bench-quick: export BENCH_SECONDS = 2
bench-quick: export BENCH_SUSTAINED_SECONDS = 5
bench-quick: export BENCH_CASES = 10000
bench-quick: export BENCH_BULK_CASES = 100
bench-quick: export BENCH_CHAIN_ROWS = 10000
bench-quick: export BENCH_RUNS = 20
bench-quick: export BENCH_ALERTS = 50
bench-quick: export BENCH_APPEND_EVENTS = 5000
bench-quick: export BENCH_IDLE_SECONDS = 3
bench-quick: export BENCH_LOAD_ALERTS = 300
bench-quick: export BENCH_CRASH_SECONDS = 40
bench-quick: node_modules console build
	node --import tsx bench/in-one-process.ts $(BENCHES)
	node --import tsx bench/memory.ts
