# The two entry points of the project (see README.md), and the published run's own command.
PY := .venv/bin/python

.PHONY: book test check quick smoke-record pdf reproduce

book:  ## set up; replay the published run's record (published/run, live spot check) when it is complete, else run the default profile live; build the HTML book
	python3 scripts/setup_env.py
	.venv/bin/llmcreativity book

test:  ## set up (with test extras: llama.cpp server, chromium), lint with ruff, type-check with mypy, run the tests (those that load no model, then the rest; each phase on two workers, each with its share of the cores: tests/workers.py)
	python3 scripts/setup_env.py --tests
	.venv/bin/ruff check lib tests
	.venv/bin/mypy
	.venv/bin/pytest -m "not slow and not e2e" -n 2
	.venv/bin/pytest -m "slow or e2e" -n 2 --dist loadgroup --no-loadscope-reorder

check:  ## set up (test extras), lint with ruff and type-check with mypy: the first loop after an edit (seconds)
	python3 scripts/setup_env.py --tests
	.venv/bin/ruff check lib tests
	.venv/bin/mypy

quick:  ## set up (test extras) and run, on both cores, every test that loads no model and starts no server or kernel
	python3 scripts/setup_env.py --tests
	.venv/bin/pytest -m "not slow and not e2e and not kernel" -n 2 -q

smoke-record:  ## record the smoke record (tests/data/records/smoke) again after a change that moves a model call
	python3 scripts/setup_env.py --tests
	rm -rf tests/data/records/smoke
	export LLMCREATIVITY_RESULTS="$$(mktemp -d)" && .venv/bin/llmcreativity run --profile smoke \
		&& .venv/bin/llmcreativity record export tests/data/records/smoke --profile smoke

pdf:   ## the whole book as one PDF (after `make book`)
	.venv/bin/llmcreativity pdf

reproduce:  ## compute the published run live (hours), resuming from published/run and exporting each stage to it
	python3 scripts/setup_env.py
	.venv/bin/llmcreativity reproduce
