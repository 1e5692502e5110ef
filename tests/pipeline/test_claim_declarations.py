"""A claim is one object, declared beside the code that decides it: its words stand in one place in `lib/`,
the module that declares it, and the claims page, the pre-registration and the book read them from the registry.

A text's places are the string literals of `lib/`'s source files that contain it whole (implicitly concatenated
literals count as one, as the parser joins them; comments are not read). A claim's verdict rule has no text of its
own: the pre-registration cuts it out of the estimator (`preregistration.rule_clauses`), so it stands where the
estimator stands; several claims share one rule's wording ("supported when the CI lies above 0 (`sign_verdict`)"),
which is why the rule is held to its claim's one estimator rather than to a place of its own.
"""

from __future__ import annotations

import ast
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import llmcreativity
from llmcreativity.claims.declarations import declaring_module, registered
from llmcreativity.claims.spec import ClaimSpec
from llmcreativity.pipeline.claim_table import CLAIMS, DECLARING_MODULES
from llmcreativity.pipeline.ledger import claims_markdown
from llmcreativity.pipeline.preregistration import claim_terms, current_terms, rule_clauses
from llmcreativity_book.site import claims_page_body

LIB = Path(llmcreativity.__file__).parent.parent
"""The `lib/` folder: every package's source."""
FIELDS = ("claim", "paper_figure", "estimator", "text", "stand_in", "not_testable")
"""The declaration's texts held to one place: the claim, the paper's figure, the estimator (which carries the
verdict rule), the recorded text, the stand-in and the reason it is not testable here (those it has)."""


def string_literals(root: Path) -> list[tuple[str, str]]:
    """(module name, literal) for every string literal of every source file under `root` (a folder holding
    packages), docstrings included."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        found += [(module, n.value) for n in ast.walk(ast.parse(path.read_text()))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def misplaced(spec: ClaimSpec, module: str, literals: list[tuple[str, str]]) -> list[str]:
    """What breaks the one-place rule for `spec`, declared in `module`: each of its texts (`FIELDS`) must stand in
    exactly one literal, of `module`."""
    wrong = []
    for field in FIELDS:
        text = getattr(spec, field)
        places = [m for m, literal in literals if text and text in literal]
        if text and places != [module]:
            wrong.append(f"{spec.claim_id} {field} {text[:60]!r}...: found in {places or 'no literal'}, "
                         f"declared in {module}")
    return wrong


@pytest.fixture(scope="module")
def literals() -> list[tuple[str, str]]:
    return string_literals(LIB)


def test_the_table_is_the_registry_complete_and_in_page_order():
    assert CLAIMS is registered()
    assert list(CLAIMS) == [f"A{i}" for i in range(1, 6)] + [f"B{i}" for i in range(1, 16)]
    assert {declaring_module(c) for c in CLAIMS} == {m.__name__ for m in DECLARING_MODULES}


def test_each_claims_texts_stand_in_one_place_its_declaring_module(literals):
    wrong = [w for c, spec in CLAIMS.items() for w in misplaced(spec, declaring_module(c), literals)]
    assert not wrong, "\n".join(wrong)


def test_a_duplicated_text_is_caught(tmp_path):
    """A copy of B7's declaring module elsewhere puts each of its texts in two places; a copy of one text alone, as
    a docstring, puts that one in two."""
    spec, module = CLAIMS["B7"], declaring_module("B7")
    source = LIB.joinpath(*module.split(".")).with_suffix(".py")
    (tmp_path / "pkg").mkdir()
    shutil.copy(source, tmp_path / "pkg" / "declaring.py")
    assert misplaced(spec, "pkg.declaring", string_literals(tmp_path)) == []
    (tmp_path / "pkg" / "quoting.py").write_text(f'"""B7 is decided by {spec.estimator}."""\n')
    wrong = misplaced(spec, "pkg.declaring", string_literals(tmp_path))
    assert len(wrong) == 1 and wrong[0].startswith("B7 estimator")
    assert "['pkg.declaring', 'pkg.quoting']" in wrong[0]
    shutil.copy(source, tmp_path / "pkg" / "copy.py")
    wrong = misplaced(spec, "pkg.declaring", string_literals(tmp_path))
    assert [w.split()[1] for w in wrong] == [f for f in FIELDS if getattr(spec, f)]


def test_the_verdict_rule_is_cut_from_the_one_estimator():
    """Each clause of a claim's verdict rule stands in its estimator, and the pre-registration's terms are the
    declaration's: estimator and rule as declared, the minimum the declaration's."""
    terms = current_terms()
    assert set(terms.claims) == {c for c, s in CLAIMS.items() if not s.not_testable}
    for c, t in terms.claims.items():
        spec = CLAIMS[c]
        assert all(clause in spec.estimator for clause in t.verdict_rule.split("; ")), c
        assert (t.estimator, t.verdict_rule, t.min_n) == (spec.estimator, rule_clauses(spec.estimator), spec.min_n)
        assert claim_terms(spec) == t
    assert terms.not_testable == {c: s.not_testable for c, s in CLAIMS.items() if s.not_testable}


def test_the_claims_page_shows_each_declaration():
    page = claims_markdown([])
    for spec in CLAIMS.values():
        assert f": {spec.paper_figure}. Minimum sample: {spec.min_n} {spec.unit}." in page, spec.claim_id
        assert not spec.estimator or f"Estimator: {spec.estimator}." in page, spec.claim_id


def test_page_registration_and_book_read_the_registry(monkeypatch, tmp_path):
    """A declaration changed in the registry is what the claims page, the pre-registration and the book show."""
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    old = CLAIMS["B3"]
    new = replace(old, paper_figure="a figure only the registry holds",
                  estimator=old.estimator.replace("Spearman rho", "Kendall tau"))
    monkeypatch.setitem(registered(), "B3", new)
    terms = current_terms().claims["B3"]
    assert terms.estimator == new.estimator and terms.verdict_rule == rule_clauses(new.estimator)
    for page in (claims_markdown([]), claims_page_body(tmp_path)):
        assert f"The paper: {new.paper_figure}." in page and f"Estimator: {new.estimator}." in page
        assert old.paper_figure not in page and old.estimator not in page
