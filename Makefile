# The two commands: `make run` and `make test` do all the set-up they need.
SWIFT ?= swift
SOURCES := Package.swift Sources Tests

.PHONY: run test build bench format lint bootstrap

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

## Builds in release and runs the main job.
run: bootstrap
	$(SWIFT) build -c release --product collage
	.build/release/collage templates

## Builds, runs every test, then checks formatting.
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory lint

## Side-by-side benchmarks against the tools a user would pick instead (not part of `make test`).
bench: bootstrap
	@for script in bench/*/run; do [ -x "$$script" ] && "$$script"; done; true

format:
	$(SWIFT) format format --in-place --recursive $(SOURCES)

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)
