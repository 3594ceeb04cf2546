# The two commands: `make run` and `make test` do all the set-up they need.
SWIFT ?= swift
SOURCES := Package.swift Sources Tests

.PHONY: run test build bench format lint bootstrap

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

## Builds in release and renders sample collages from the sample photos into out/.
run: bootstrap
	$(SWIFT) build -c release --product collage
	@mkdir -p out
	.build/release/collage make --layout magazine --aspect 4:5 --radius 12 --background '#fdf6ec' \
		samples/astronaut.png samples/coffee.png samples/chelsea.png -o out/sample-collage.jpg
	.build/release/collage render Examples/scrapbook.json -o out/scrapbook.png
	@echo "Open out/sample-collage.jpg and out/scrapbook.png to see them."

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
