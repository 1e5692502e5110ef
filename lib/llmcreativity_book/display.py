"""What a chapter shows on its page: tables rounded to their precision, short model names, prose for long texts.

One convention for every chapter, applied on the page only: the files a stage writes keep their full identities and
every digit (their digests are recorded and a replay compares them); what the reader sees is made here.

- `table(frame)` shows a data frame. A number is rounded to the digits its uncertainty supports: two significant
  figures of its row's confidence interval's half-width, or of its standard deviation, where the frame gives one
  (columns `ci_low`/`ci_high`, `low`/`high`, `<c>_low`/`<c>_high`, `sd`, `std`, `<c>_sd`, `<c>_std`, or a
  `(..., "mean")` column beside its `(..., "std")`); otherwise two significant figures of the column's spread over
  its rows, so that differences between rows stay visible; a column of one value gets three significant figures,
  whole numbers no decimals, and a p-value two significant figures of its own size.
  Every model identity in a cell, a label or a title becomes its short label.
- `short_label(text)` replaces every full model identity in `text` with its short label
  (`llama.cpp:qwen2.5-coder-0.5b:…:row-seeded` -> `qwen2.5-coder-0.5b (llama.cpp)`); the full identity stays in
  the chapter's provenance section (`pipeline.provenance.show_provenance`).
- `say(*parts)` prints a line with short labels, and nothing at all when every part is empty (no empty output box).
- `prose(text)` shows a long text (a story, a prompt) as wrapped paragraphs.
- `fit_figure(fig)` is the one figure-size rule: a figure is drawn at most `MAX_FIGURE_PX` wide, so that the book's
  column (`COLUMN_PX` at 1280 px) shows it at 75 % of its natural size or more, and no text of it is smaller than
  `MIN_TEXT_PX` on the page. Importing this module in a Jupyter kernel applies it to every figure the kernel shows
  (`install_figure_rule`), so a chapter's figures follow it without a call.
"""

from __future__ import annotations

import functools
import html
import math
import re
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from llmcreativity.llm.registry import short_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES = 2
"""Significant figures an uncertainty (a CI's half-width, an SD, a column's spread) is shown to."""
LONE_FIGURES = 3
"""Significant figures of a number with nothing to say how precise it is (a column of one value)."""
MAX_DECIMALS = 6
"""The most decimals any number is shown with."""
MISSING = "–"
"""How a missing value reads in a table."""
TEXT_WORDS = 10
"""A cell of this many words or more holds running text: it gets the class `llmc-text`, which the book's stylesheet
(`book/_assets/page.css`) keeps at a readable width."""

P_VALUES = re.compile(r"^p(?:_?value)?(?:_\w+)?$")
"""Columns of p-values (`p`, `p_value`, `p_holm`, ...): each shown to two significant figures of its own size."""
_CI_PAIRS = [("ci_low", "ci_high"), ("low", "high"), ("lo", "hi"), ("ci_lo", "ci_hi")]
_SD_NAMES = ("sd", "std")


def decimals(scale: float, figures: int = FIGURES) -> int | None:
    """Decimals that show a quantity of size `scale` to `figures` significant figures (None: no usable scale).

    >>> decimals(0.17), decimals(0.012), decimals(257.0), decimals(0.0)
    (2, 3, 0, None)
    """
    if not math.isfinite(scale) or scale <= 0:
        return None
    return min(MAX_DECIMALS, max(0, figures - 1 - math.floor(math.log10(scale))))


def _floats(column: pd.Series) -> pd.Series:
    return pd.to_numeric(column, errors="coerce").astype(float)


def _spread_decimals(values: pd.Series) -> int:
    """Decimals of a column with no uncertainty of its own: its spread's, else its size's, else whole numbers."""
    finite = values[np.isfinite(values)]
    if finite.empty or (finite == finite.round()).all():
        return 0
    spread = float(finite.std()) if finite.nunique() > 1 else 0.0
    found = decimals(spread)
    if found is None:
        found = decimals(float(finite.abs().max()), LONE_FIGURES)
    return 0 if found is None else found


def _uncertainty(frame: pd.DataFrame, numeric: Sequence[Hashable]) -> dict[Hashable, pd.Series]:
    """Column -> the per-row scale (half-width or SD) that governs its rounding, for the columns the frame gives one."""
    scales: dict[Hashable, pd.Series] = {}
    names = {c: c for c in numeric}

    def pair(low: Hashable, high: Hashable) -> pd.Series:
        return (_floats(frame[high]) - _floats(frame[low])).abs() / 2

    for low, high in _CI_PAIRS:
        if low in names and high in names:
            half = pair(low, high)
            lo, hi = _floats(frame[low]), _floats(frame[high])
            for c in numeric:
                v = _floats(frame[c])
                inside = ((v >= lo - 1e-12) & (v <= hi + 1e-12)) | v.isna()
                if c in (low, high) or (inside.all() and v.notna().any()):
                    scales.setdefault(c, half)
    for c in numeric:
        label = c[-1] if isinstance(c, tuple) else c
        stem = c[:-1] if isinstance(c, tuple) else None
        for suffix_low, suffix_high in (("_low", "_high"), ("_lo", "_hi")):
            if isinstance(c, str) and f"{c}{suffix_low}" in names and f"{c}{suffix_high}" in names:
                half = pair(f"{c}{suffix_low}", f"{c}{suffix_high}")
                for governed in (c, f"{c}{suffix_low}", f"{c}{suffix_high}"):
                    scales.setdefault(governed, half)
        for sd in _SD_NAMES:
            if isinstance(c, str) and f"{c}_{sd}" in names:
                spread = _floats(frame[f"{c}_{sd}"])
                scales.setdefault(c, spread)
                scales.setdefault(f"{c}_{sd}", spread)
            if stem is not None and label == "mean" and (*stem, sd) in names:
                spread = _floats(frame[(*stem, sd)])
                scales.setdefault(c, spread)
                scales.setdefault((*stem, sd), spread)
        if label in _SD_NAMES and stem is None:
            spread = _floats(frame[c])
            scales.setdefault(c, spread)
            if "mean" in names:
                scales.setdefault("mean", spread)
    return scales


def _number(value: float, places: int) -> str:
    return MISSING if not math.isfinite(value) else f"{value:,.{places}f}"


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return MISSING
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return short_label(str(value))


def _label(value: Hashable) -> str:
    if isinstance(value, tuple):
        return " ".join(short_label(str(v)) for v in value if str(v) != "")
    return short_label(str(value))


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as the page shows it: every cell a string, numbers rounded to their precision, short labels."""
    numeric = [c for c in frame.columns
               if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]
    scales = _uncertainty(frame, numeric)
    out = pd.DataFrame(index=[_label(i) for i in frame.index], columns=[_label(c) for c in frame.columns],
                       dtype=object)
    for j, c in enumerate(frame.columns):
        column = frame[c]
        if c not in numeric:
            out.iloc[:, j] = [_cell(v) for v in column]
            continue
        values = _floats(column)
        if pd.api.types.is_integer_dtype(column):
            out.iloc[:, j] = [_number(v, 0) for v in values]
            continue
        fallback = _spread_decimals(values)
        scale = scales.get(c)
        if scale is None and isinstance(c, str) and P_VALUES.match(c):
            scale = values.abs()
        places = [fallback if scale is None or (d := decimals(float(s))) is None else d
                  for s in (scale if scale is not None else [math.nan] * len(values))]
        out.iloc[:, j] = [_number(v, p) for v, p in zip(values, places, strict=True)]
    return out


class Table:
    """A data frame as the page shows it (`shown`): an HTML table with numbers right-aligned, or plain text."""

    def __init__(self, frame: pd.DataFrame, *, index: bool = True, caption: str = "") -> None:
        self.frame = shown(frame)
        self.numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
                        for c in frame.columns]
        self.index = index and not isinstance(frame.index, pd.RangeIndex)
        self.index_name = _label(frame.index.name) if frame.index.name is not None else ""
        self.caption = short_label(caption)

    def _row(self, cells: Iterable[str], tag: str, numeric: Iterable[bool]) -> str:
        def attributes(cell: str, num: bool) -> str:
            if num:
                return ' style="text-align: right"'
            return ' class="llmc-text"' if len(cell.split()) >= TEXT_WORDS else ""

        return "<tr>" + "".join(f"<{tag}{attributes(cell, num)}>{html.escape(cell)}</{tag}>"
                                for cell, num in zip(cells, numeric, strict=True)) + "</tr>"

    def _repr_html_(self) -> str:
        head = ([self.index_name] if self.index else []) + list(self.frame.columns)
        align = ([False] if self.index else []) + self.numeric
        rows = [self._row(([str(i)] if self.index else []) + list(row), "td", align)
                for i, row in zip(self.frame.index, self.frame.itertuples(index=False), strict=True)]
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (f'<table class="llmc-table">{caption}<thead>{self._row(head, "th", align)}</thead>'
                f"<tbody>{''.join(rows)}</tbody></table>")

    def __repr__(self) -> str:
        text = self.frame.to_string(index=self.index)
        return f"{self.caption}\n{text}" if self.caption else text


def table(frame: pd.DataFrame | pd.Series, *, index: bool = True, caption: str = "") -> Table:
    """`frame` as the page shows it (a series becomes a one-column frame); the last expression of a cell."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    return Table(frame, index=index, caption=caption)


def say(*parts: Any, sep: str = " ") -> None:
    """Print `parts` as one line with short model labels; print nothing when every part is empty."""
    texts = [str(p) for p in parts]
    if any(t.strip() for t in texts):
        print(short_label(sep.join(texts)))


class Prose:
    """A long text shown as wrapped paragraphs (blank lines part them), not as a code-output box."""

    def __init__(self, text: str, title: str = "") -> None:
        self.text, self.title = text, short_label(title)

    def _repr_html_(self) -> str:
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", self.text.strip()) if p.strip()]
        body = "".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs)
        title = f"<p><strong>{html.escape(self.title)}</strong></p>" if self.title else ""
        return f'<blockquote class="llmc-prose">{title}{body}</blockquote>'

    def __repr__(self) -> str:
        return f"{self.title}\n\n{self.text}" if self.title else self.text


def prose(text: str, title: str = "") -> Prose:
    """`text` (a story, a prompt) as wrapped paragraphs under an optional bold `title`."""
    return Prose(text, title)


COLUMN_PX = 676
"""Width in CSS pixels of the book's text column at a 1280 px screen (sphinx-book-theme), where figures stand."""
MAX_FIGURE_PX = 900
"""The widest a figure is drawn, in pixels at its dpi: the column shows it at 75 % of its natural width or more
(the page check, `llmcreativity_book.page_check`, reports a figure below 60 %)."""
MIN_TEXT_PX = 9
"""The smallest text a figure shows on the page, in CSS pixels, after the column has scaled it."""


def fit_figure(fig: Figure) -> Figure:
    """The figure-size rule, applied in place: a figure wider than `MAX_FIGURE_PX` is narrowed to it (its height
    kept, its layout redone), and every text smaller than `MIN_TEXT_PX` once the column (`COLUMN_PX`) has scaled the
    figure is enlarged to it. Returns `fig`."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine
    from matplotlib.text import Text

    dpi = float(fig.dpi)
    width, height = (float(v) for v in fig.get_size_inches())
    changed = False
    if width * dpi > MAX_FIGURE_PX + 0.5:
        width = MAX_FIGURE_PX / dpi
        fig.set_size_inches(width, height, forward=False)
        changed = True
    scale = min(1.0, COLUMN_PX / (width * dpi))
    smallest = MIN_TEXT_PX / scale * 72 / dpi  # points that show as MIN_TEXT_PX on the page
    ticks: set[int] = set()
    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels(which="both")
            ticks.update(id(t) for t in labels)
            if any(float(t.get_fontsize()) < smallest for t in labels):
                ax.tick_params(axis="x" if name == "x" else "y", which="both", labelsize=smallest)
                changed = True
    for text in fig.findobj(Text):
        if id(text) not in ticks and text.get_text() and float(text.get_fontsize()) < smallest:
            text.set_fontsize(smallest)
            changed = True
    if changed and isinstance(fig.get_layout_engine(), (type(None), PlaceHolderLayoutEngine)) and fig.axes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fig.tight_layout()
    return fig


def _fitting(print_figure: Callable[..., Any]) -> Callable[..., Any]:
    """`print_figure` (IPython's, which draws a figure for the page) applying `fit_figure` first."""
    if getattr(print_figure, "fits_the_column", False):
        return print_figure

    @functools.wraps(print_figure)
    def fitted(fig: Figure, *args: Any, **kwargs: Any) -> Any:
        return print_figure(fit_figure(fig), *args, **kwargs)

    fitted.fits_the_column = True  # type: ignore[attr-defined]
    return fitted


def install_figure_rule() -> bool:
    """Make the running IPython kernel draw every figure through `fit_figure`: IPython's `print_figure`, which the
    inline backend's formatters call, is wrapped (for formatters registered later, when matplotlib's backend
    loads) and the figure formatters already registered are re-registered with it. False outside IPython."""
    try:
        from IPython import get_ipython
        from IPython.core import pylabtools
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    pylabtools.print_figure = _fitting(pylabtools.print_figure)
    from matplotlib.figure import Figure

    for formatter in shell.display_formatter.formatters.values():
        printer = formatter.type_printers.get(Figure)
        if isinstance(printer, functools.partial) and printer.func is not pylabtools.print_figure \
                and getattr(printer.func, "__name__", "") == "print_figure":
            formatter.for_type(Figure, functools.partial(_fitting(printer.func), *printer.args, **printer.keywords))
    return True


install_figure_rule()
