"""The README is a newcomer's page: short, with the two commands for a fresh machine, and the way to the rest."""

from __future__ import annotations

import re

from llmcreativity.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def test_the_readme_is_short_and_keeps_the_two_commands_for_a_fresh_machine():
    assert len(README.splitlines()) <= 130
    block = re.search(r"## On a fresh machine\n\n```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["make book", "make test"]


def test_the_readme_links_the_findings_the_history_and_the_contributors_guide():
    for place in ("book/claims.md", "book/history.md", "CONTRIBUTING.md", "book/rerun.md"):
        assert place in README, place
        assert (REPO_ROOT / place).exists(), place
    assert "## What it found" in README and README.index("## What it found") < README.index("## On a fresh machine")


def test_the_readme_holds_no_dated_measurement():
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", README), "dated measurements belong in book/history.md"
