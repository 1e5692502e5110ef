"""Build the book: stage a source folder from the executed notebooks, then run jupyter-book offline.

The staged folder holds `_config.yml`, the pages of `book/` at its top level (with the claims
table filled in from `claims.jsonl`; the root page must sit at the top for the single-page
build's asset paths), `executed/<stage>.ipynb` for every stage, the project's `_toc.yml` with
one chapter per stage of `STAGES` added to its "Stages" part, and MathJax under
`_assets/mathjax` (from the django-static-mathjax package). It is built with execution off and
`-W`, so any warning fails the build. A book page links to a stage chapter as
`{doc}`executed/<stage>``.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.claims import claims_markdown, read_claims
from llmcreativity.pipeline.manifest import executed_notebook
from llmcreativity.pipeline.order import ordered_stages
from llmcreativity.pipeline.publish import incomplete_stages
from llmcreativity.pipeline.stages import Stage

CLAIMS_MARKER = "<!-- claims-table -->"
"""Line of `book/claims.md` replaced by the generated claims table."""
STAGES_CAPTION = "Stages"
"""Caption of the `_toc.yml` part that receives one chapter per stage."""


class BuildError(RuntimeError):
    """The book cannot be built; the message says why and what to run."""


def mathjax_dir() -> Path:
    """MathJax 3's `es5` folder shipped by the django-static-mathjax package."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise BuildError("MathJax is missing: install the pip package django-static-mathjax "
                         "(`python3 scripts/setup_env.py`)")
    folder = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    if not (folder / "tex-chtml.js").exists():
        raise BuildError(f"{folder} has no tex-chtml.js: reinstall django-static-mathjax")
    return folder


def toc(stages: list[Stage], template: Path | None = None) -> dict:
    """The staged `_toc.yml`: the template (`_toc.yml` at the project root) with its "Stages" part
    holding one chapter per stage, `executed/<stage>`, in the given order."""
    template = REPO_ROOT / "_toc.yml" if template is None else template
    content = yaml.safe_load(template.read_text())
    parts = [p for p in content.get("parts", []) if p.get("caption") == STAGES_CAPTION]
    if len(parts) != 1:
        raise BuildError(f"{template} needs exactly one part with `caption: {STAGES_CAPTION}` to hold the stages")
    parts[0]["chapters"] = [{"file": f"executed/{s.name}"} for s in stages]
    return content


def stage_source(target: Path, stages: list[Stage] | None = None, config: Path | None = None,
                 pages: Path | None = None, toc_template: Path | None = None) -> Path:
    """Write the book's source folder into `target` (replacing it) and return it.

    Refuses when a stage is missing, failed or stale, so no half-built book is published.
    """
    ordered = ordered_stages(stages)
    reasons = incomplete_stages(ordered)
    if reasons:
        raise BuildError("the book was not built, because:\n  - " + "\n  - ".join(reasons))
    config = REPO_ROOT / "_config.yml" if config is None else config
    pages = REPO_ROOT / "book" if pages is None else pages
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    settings = yaml.safe_load(config.read_text())
    settings["bibtex_bibfiles"] = [Path(b).name for b in settings.get("bibtex_bibfiles", [])]
    (target / "_config.yml").write_text(yaml.safe_dump(settings, sort_keys=False))
    shutil.copytree(pages, target, dirs_exist_ok=True)
    claims_page = target / "claims.md"
    text = claims_page.read_text()
    if CLAIMS_MARKER not in text:
        raise BuildError(f"{pages / 'claims.md'} has no line {CLAIMS_MARKER!r} to put the claims table at")
    claims_page.write_text(text.replace(CLAIMS_MARKER, claims_markdown(read_claims())))
    (target / "executed").mkdir()
    for s in ordered:
        shutil.copy2(executed_notebook(s), target / "executed" / f"{s.name}.ipynb")
    (target / "_toc.yml").write_text(yaml.safe_dump(toc(ordered, toc_template), sort_keys=False))
    shutil.copytree(mathjax_dir(), target / "_assets" / "mathjax")
    return target


def jupyter_book(source: Path, output: Path, builder: str = "html") -> Path:
    """Run `jupyter-book build` with warnings as errors; return the built folder."""
    cmd = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(source), "--path-output", str(output),
           "--builder", builder, "-W", "-n", "--keep-going"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
        raise BuildError(f"jupyter-book build failed (exit {done.returncode}):\n{tail}")
    return output / "_build" / builder


def build(output: Path | None = None, builder: str = "html", stages: list[Stage] | None = None,
          config: Path | None = None, pages: Path | None = None) -> Path:
    """Stage the sources under `output/_build/src` and build them; return the HTML folder."""
    output = REPO_ROOT if output is None else output
    source = stage_source(output / "_build" / "src", stages, config, pages)
    return jupyter_book(source, output, builder)
