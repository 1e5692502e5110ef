"""The page's display convention (`llmcreativity_book.display`): numbers to their precision, short model names,
prose for long texts, no empty output."""

from __future__ import annotations

import pandas as pd

from llmcreativity.llm.http_client import endpoint_identity
from llmcreativity.llm.registry import local_identity
from llmcreativity_book.display import prose, say, short_label, shown, table

LLAMA = ("llama.cpp:qwen2.5-coder-1.5b:qwen2.5-coder-1.5b-instruct.gguf:sha256-0123456789abcdef:"
         "llama-cpp-python-0.3.36:row-seeded")


def test_every_kind_of_model_identity_gets_its_short_label():
    text = f"writer {LLAMA}; embedder {local_identity('all-mpnet-base-v2', 'float32')}; " \
           f"judge {endpoint_identity('openai', 'http://host:8000/v1', 'judge', 'weights-7b')}"
    assert short_label(text) == ("writer qwen2.5-coder-1.5b (llama.cpp); embedder all-mpnet-base-v2 (transformers); "
                                 "judge judge (endpoint)")
    assert short_label("retrieval-full(R=3,k=2) (llama.cpp:qwen2.5-coder-0.5b)") == \
        "retrieval-full(R=3,k=2) (llama.cpp:qwen2.5-coder-0.5b)"  # a judge's name is already short


def test_an_estimate_is_rounded_to_two_figures_of_its_own_rows_interval():
    frame = pd.DataFrame({"claim": ["B3", "A2"], "rho": [0.21234, 1.181234],
                          "ci_low": [0.03112, 1.180111], "ci_high": [0.37156, 1.182987]})
    assert shown(frame).values.tolist() == [["B3", "0.21", "0.03", "0.37"], ["A2", "1.1812", "1.1801", "1.1830"]]


def test_a_mean_is_rounded_to_its_sd_and_a_column_without_one_to_its_spread():
    summary = pd.DataFrame({"metric": ["surprisal", "KL"], "mean": [0.47612, 2.23312], "sd": [0.2712, 0.01213]})
    assert shown(summary)["mean"].tolist() == ["0.48", "2.233"]
    agg = pd.DataFrame([[2.23312, 0.01213]], columns=pd.MultiIndex.from_tuples([("kl", "mean"), ("kl", "std")]))
    assert shown(agg).values.tolist() == [["2.233", "0.012"]]
    spread = pd.DataFrame({"kl": [1.18123, 1.18345, 1.18567], "words": [257.571429, 8341.357143, 300.0]})
    assert shown(spread).values.tolist() == [["1.1812", "258"], ["1.1834", "8,341"], ["1.1857", "300"]]


def test_whole_numbers_lone_values_p_values_and_gaps():
    frame = pd.DataFrame({"n": [3.0, 12.0], "lone": [0.123456, 0.123456], "p": [0.012345, 0.5],
                          "share": [0.25, None]})
    assert shown(frame).values.tolist() == [["3", "0.123", "0.012", "0.250"], ["12", "0.123", "0.50", "–"]]


def test_a_table_is_html_with_right_aligned_numbers_and_short_labels_and_hides_a_plain_index():
    frame = pd.DataFrame({"model": [LLAMA], "se": [0.51234]})
    page = table(frame)._repr_html_()
    assert page.startswith('<table class="llmc-table">') and "qwen2.5-coder-1.5b (llama.cpp)" in page
    assert "sha256" not in page and '<td style="text-align: right">0.512</td>' in page
    assert "<th></th>" not in page  # a RangeIndex is not shown
    assert "sha256" not in repr(table(frame.set_index("model")))


def test_say_prints_short_labels_and_nothing_when_empty(capsys):
    say()
    say("", "")
    say("judge", LLAMA)
    assert capsys.readouterr().out == "judge qwen2.5-coder-1.5b (llama.cpp)\n"


def test_prose_wraps_paragraphs_and_escapes_html():
    page = prose("First <b>line</b>\nsame paragraph.\n\nSecond.", title="Story 1")._repr_html_()
    assert page == ('<blockquote class="llmc-prose"><p><strong>Story 1</strong></p>'
                    "<p>First &lt;b&gt;line&lt;/b&gt;<br>same paragraph.</p><p>Second.</p></blockquote>")


def test_the_labs_confirmation_table_is_rounded_by_its_intervals_on_the_page():
    from llmcreativity.judgelab.lab import Confirmation
    from llmcreativity.judgelab.lab_display import confirmation_table

    r = Confirmation("convergent", "convergent: head [lab 1a2b3c4d5e6f]", "head", "AUC", 0.61234567, 0.55123, 0.66789,
                     0.5, 120, 30, "length only", 0.5512345, 0.0123456, 0.1098765, 0.81234, "s" * 64, "c" * 40,
                     "h" * 64, False, {})
    raw = confirmation_table([r])
    assert raw.loc["convergent", "estimate"] == 0.61234567  # the library leaves every digit
    assert raw.loc["convergent", "difference"] == 0.61234567 - 0.5512345
    page = shown(raw)
    assert page.loc["convergent", "estimate"] == "0.612"  # two figures of the CI's half-width 0.058
    assert page.loc["convergent", "difference"] == "0.061"  # and of the difference's (0.049)
