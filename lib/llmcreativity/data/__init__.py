"""Loaders of the public datasets (read from `llmcreativity.paths.data_dir()`, never copied into the repo)."""
