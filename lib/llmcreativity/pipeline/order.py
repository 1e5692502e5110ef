"""Dependency order of the stages: each stage after the stages whose outputs it reads."""

from __future__ import annotations

from .stages import STAGES, Stage


def ordered_stages(stages: list[Stage] | None = None) -> list[Stage]:
    """Stages sorted so each comes after the stages it depends on (depth-first, stable for independent ones)."""
    stages = list(STAGES if stages is None else stages)
    by_name = {s.name: s for s in stages}
    if len(by_name) != len(stages):
        raise ValueError(f"duplicate stage names in STAGES: {[s.name for s in stages]}")
    for s in stages:
        for d in s.depends:
            if d not in by_name:
                raise ValueError(f"stage {s.name!r} depends on unknown stage {d!r}; known: {sorted(by_name)}")
    done: list[Stage] = []
    visiting: set[str] = set()

    def visit(s: Stage) -> None:
        if s in done:
            return
        if s.name in visiting:
            raise ValueError(f"stage dependencies form a cycle through {s.name!r}")
        visiting.add(s.name)
        for d in s.depends:
            visit(by_name[d])
        visiting.discard(s.name)
        done.append(s)

    for s in stages:
        visit(s)
    return done


def find_stage(name: str, stages: list[Stage] | None = None) -> Stage:
    """The stage called `name`, or a KeyError listing the known stages."""
    stages = STAGES if stages is None else stages
    for s in stages:
        if s.name == name:
            return s
    raise KeyError(f"unknown stage {name!r}; known stages: {[s.name for s in stages]}")
