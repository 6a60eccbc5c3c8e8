# Stampede: `make run` serves the playground; `make test` runs every suite.
# Both set up what is missing first (scripts/setup.sh is idempotent and fast when done).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

ADDR ?= 127.0.0.1:8080

.PHONY: setup test test-rust lint fmt bench run build

setup:
	@scripts/setup.sh

## Every test suite: formatting, lints with warnings denied, the Rust tests (unit, property,
## statistical, doc, integration, server load).
test: setup lint test-rust

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

test-rust:
	cargo test --workspace --locked

fmt:
	cargo fmt --all

## Criterion benchmarks of the simulator (figures in README.md).
bench:
	cargo bench -p stampede --bench sim

build:
	cargo build --release --locked -p stampede-cli

## Set up, build, and serve the playground with the demo API on $(ADDR).
run: setup build
	@echo "Stampede: open http://$(ADDR)/"
	target/release/stampede serve --addr $(ADDR) --static www/dist
