# Two commands for a newcomer: `make run` and `make test` (README).
.PHONY: run test lint typecheck depcruise biome format bench migrate

node_modules: package-lock.json
	npm install --no-audit --no-fund
	@touch node_modules

run: node_modules
	node bin/svc.js serve

migrate: node_modules
	node bin/svc.js migrate

typecheck: node_modules
	npx tsc --noEmit

depcruise: node_modules
	npx depcruise --config .dependency-cruiser.cjs domain projections adapters runtime tests bench

# The formatter check and the linter (biome.json); `make format` rewrites the files.
biome: node_modules
	npx biome ci .

format: node_modules
	npx biome check --write .

lint: typecheck depcruise biome

test: lint
	npx vitest run

bench: node_modules
	node --import tsx bench/alert-intake.ts
	node --import tsx bench/case-list.ts
	node --import tsx bench/runbook-engine.ts
	node --import tsx bench/chain-verify.ts
	node --import tsx bench/custom-action.ts
	node --import tsx bench/containment.ts
