# The two entry points of the project (see README.md), and the published run's own command.
PY := .venv/bin/python

.PHONY: book test pdf reproduce

book:  ## set up; replay the published run's record (published/run, live spot check) when it is complete, else run the default profile live; build the HTML book
	python3 scripts/setup_env.py
	.venv/bin/llmcreativity book

test:  ## set up (with test extras: llama.cpp server, chromium), lint with ruff, type-check with mypy, run the tests
	python3 scripts/setup_env.py --tests
	.venv/bin/ruff check lib tests
	.venv/bin/mypy
	.venv/bin/pytest

pdf:   ## the whole book as one PDF (after `make book`)
	.venv/bin/llmcreativity pdf

reproduce:  ## compute the published run live (hours), resuming from published/run and exporting each stage to it
	python3 scripts/setup_env.py
	.venv/bin/llmcreativity reproduce
