# The two entry points of the project (see README.md).
PY := .venv/bin/python

.PHONY: book test pdf

book:  ## set up, execute every stage notebook on the embedded models, build the HTML book
	python3 scripts/setup_env.py
	.venv/bin/llmcreativity run --profile default
	.venv/bin/llmcreativity build

test:  ## set up (with test extras: llama.cpp server, chromium), lint with ruff, type-check with mypy, run the tests
	python3 scripts/setup_env.py --tests
	.venv/bin/ruff check lib tests
	.venv/bin/mypy
	.venv/bin/pytest

pdf:   ## the whole book as one PDF (after `make book`)
	.venv/bin/llmcreativity pdf
