"""The claims' registry: each domain declares its claims there once; the registry keeps them in page order and
refuses an id declared twice."""

from __future__ import annotations

import pytest

from llmcreativity.claims import declarations
from llmcreativity.claims.declarations import declaration, declaring_module, min_n, page_order, register, registered
from llmcreativity.claims.spec import PAPER_B, ClaimSpec


def claim(claim_id: str) -> ClaimSpec:
    return ClaimSpec(claim_id, PAPER_B, "A claim.", "a claim", "a figure (qualitative)", None, "", 5, "problems",
                     "none")


@pytest.fixture
def empty(monkeypatch):
    """A registry of its own, empty: the real one stays as the domains declared it."""
    monkeypatch.setattr(declarations, "_SPECS", {})
    monkeypatch.setattr(declarations, "_MODULES", {})


def test_claims_are_kept_in_page_order_whatever_order_they_are_declared_in(empty):
    register(claim("B10"), claim("B2"), module="domain.one")
    register(claim("A3"), module="domain.two")
    assert list(registered()) == ["A3", "B2", "B10"]
    assert declaring_module("B10") == "domain.one" and declaration("A3") == claim("A3")
    assert sorted(["B10", "A1", "B9", "A10"], key=page_order) == ["A1", "A10", "B9", "B10"]


def test_an_id_declared_twice_is_refused_naming_both_declarations(empty):
    register(claim("B2"), module="domain.one")
    with pytest.raises(ValueError, match=r"claim 'B2' is declared twice: by domain.one and by domain.two"):
        register(claim("B3"), claim("B2"), module="domain.two")
    with pytest.raises(ValueError, match=r"claim 'B4' is declared twice: by domain.two and by domain.two"):
        register(claim("B4"), claim("B4"), module="domain.two")
    assert list(registered()) == ["B2"]  # a refused call registers nothing


def test_a_domain_module_declares_its_claims_once():
    from llmcreativity.writing import convergence

    assert declaring_module("A4") == convergence.__name__
    with pytest.raises(ValueError, match="'A4' is declared twice: by llmcreativity.writing.convergence"):
        register(declaration("A4"), module="somewhere.else")
    assert min_n("A4") == declaration("A4").min_n  # a run under no registration


def test_an_undeclared_claim_says_what_to_import(empty):
    with pytest.raises(KeyError, match="claim 'B2' is not declared: import the module that declares it"):
        min_n("B2", "default")
