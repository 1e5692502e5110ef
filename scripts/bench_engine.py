"""Benchmark of the local engine, every figure side by side in one run on the same prompts (issue 15).

Usage: .venv/bin/python scripts/bench_engine.py [--models smollm2-135m qwen2.5-coder-0.5b qwen2.5-coder-1.5b]
       [--prefill-tokens 128] [--decode-rows 4] [--decode-tokens 16] [--rubric-model qwen2.5-coder-0.5b]
       [--panel-model qwen2.5-coder-0.5b]

1. Prefill tokens/s (one prompt, teacher forcing) and batched decode tokens/s (`--decode-rows` prompts
   sampled together, aggregate) for float32 and bfloat16 on each model.
2. The rubric judge's seconds per story (expected mode, five dimensions, one HANNA story): the engine
   before issue 15 (one full forward per dimension with logits at every position), this engine without
   prefix reuse (one `answer_probs` per dimension), and the judge's batched call with prefix reuse; and the
   sampled mode (three replies per dimension) through `model.generate` as before versus this engine.
3. A judge panel's seconds per item: three agents over two rounds, every prompt the shared part (task,
   solution, criterion) followed by the agent's role (a synthetic prompt set in the retrieval panel's
   shape), greedy replies; without versus with prefix reuse.

Models run in the default dtype ("auto": bfloat16 only on a CPU with native bfloat16) for parts 2 and 3.
Cache off. Prints `uptime` first and last: the machine may be shared, so read the ratios, not the absolutes.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import time

import pandas as pd
import torch
from transformers import GenerationConfig as HFGenerationConfig

from llmcreativity.judges import JudgeItem
from llmcreativity.judges.rubric import ANSWERS, DIMENSIONS, SAMPLING, RubricJudge, rubric_prompt
from llmcreativity.llm import GenerateConfig, materialize
from llmcreativity.llm.device import resolve_dtype
from llmcreativity.llm.transformers_local import TransformersBackend, convert_gguf
from llmcreativity.paths import data_dir

TEXT = ("The survey drone found the city under the ice on the third day: streets of blue glass, lamps that still "
        "burned, and a harbour where the boats were frozen in mid-turn. ")


def load(model: str, dtype: str, reuse: bool) -> TransformersBackend:
    path = convert_gguf(model, materialize(model))
    return TransformersBackend(path, name=model, dtype=dtype, prefix_reuse=reuse)


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def throughput(model: str, dtype: str, prefill_tokens: int, rows: int, decode_tokens: int) -> dict:
    lm = load(model, dtype, reuse=False)
    ids = lm.tokenizer(TEXT * 40, add_special_tokens=False)["input_ids"][:prefill_tokens]
    lm._read([ids[:8]], [1])  # warm-up
    prefill_s, _ = timed(lambda: lm._read([ids], [1]))
    prompts = [f"Story {i}: {TEXT[:60 + 10 * i]}" for i in range(rows)]
    cfg = GenerateConfig(n=1, temperature=1.0, max_tokens=decode_tokens, seed=0)
    decode_s, out = timed(lambda: lm.generate(prompts, cfg))
    made = sum(len(o[0].tokens) for o in out)
    return {"model": model, "dtype": dtype, "prefill tok/s": len(ids) / prefill_s,
            f"decode tok/s (batch {rows})": made / decode_s, "decoded": made}


def rubric_story() -> JudgeItem:
    row = pd.read_csv(data_dir() / "hanna" / "hanna_llm_stories.csv").iloc[0]
    return JudgeItem("hanna-0", str(row["Prompt"]), str(row["Human"]))


def rubric_seconds(model: str) -> dict:
    """Seconds per story of the expected mode three ways, and the largest |difference| of a digit's log-probability.

    "before": the engine before issue 15 (one full forward per dimension, logits at every position);
    "no reuse": this engine with prefix reuse off (one call per dimension, logits where they are read);
    "reuse": the judge's one batched call with prefix reuse (what the evaluation stage now runs).
    """
    item = rubric_story()
    full, fast = load(model, "auto", reuse=False), load(model, "auto", reuse=True)
    answers = list(ANSWERS)
    prompts = [rubric_prompt(item.task, item.response, d) for d in DIMENSIONS]
    digits = [full.tokenizer(a, add_special_tokens=False)["input_ids"][0] for a in answers]

    def before(p) -> list[float]:
        with torch.inference_mode():
            logits = full.model(input_ids=torch.tensor([full._prompt_ids(p)])).logits[0, -1].float()
        return torch.log_softmax(logits, dim=-1)[digits].tolist()

    fast.answer_probs("warm up", answers)
    before("warm up")
    before_s, old = timed(lambda: [before(p) for p in prompts])
    slow_s, _ = timed(lambda: [full.answer_probs(p, answers) for p in prompts])
    fast_s, scores = timed(lambda: RubricJudge(fast).expected(item))
    quick = fast.answer_probs_batch(prompts, answers)
    diff = max(abs(a.logprobs[k] - b) for a, row in zip(quick, old, strict=True) for k, b in zip(answers, row,
                                                                                                  strict=True))
    assert len(scores) == len(DIMENSIONS)
    fast.prefixes.clear()
    sampled_before_s, _ = timed(lambda: [hf_generate(full, prompts[i:i + 4], SAMPLING) for i in range(0, 5, 4)])
    sampled_s, _ = timed(lambda: RubricJudge(fast, max_retries=0).sampled(item))
    return {"before": before_s, "no reuse": slow_s, "reuse": fast_s, "diff": diff,
            "tokens": len(fast._prompt_ids(prompts[0])), "sampled before": sampled_before_s, "sampled": sampled_s}


def hf_generate(lm: TransformersBackend, prompts: list, cfg: GenerateConfig) -> None:
    """The sampling path before issue 15: `model.generate` on left-padded full prompts, n rows each prefilled."""
    batch = [lm._prompt_ids(p) for p in prompts]
    width = max(len(ids) for ids in batch)
    pad = lm.tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(b)) + b for b in batch])
    mask = torch.tensor([[0] * (width - len(b)) + [1] * len(b) for b in batch])
    gen = HFGenerationConfig(do_sample=True, temperature=cfg.temperature, top_p=cfg.top_p, top_k=None,
                             max_new_tokens=cfg.max_tokens, num_return_sequences=cfg.n, pad_token_id=pad,
                             eos_token_id=sorted(lm.eos_ids), output_logits=True, return_dict_in_generate=True)
    with torch.inference_mode():
        lm.model.generate(input_ids=ids, attention_mask=mask, generation_config=gen)


PANEL_ROLES = {
    "Problem": "You are the Problem analyst: say what the task requires, its goal and constraints.",
    "Solution": "You are the Solution analyst: say what the proposed solution actually does, step by step.",
    "Criterion": "You are the Criterion analyst: check the other analysts' findings against the criterion.",
}


def panel_item() -> str:
    """The shared part of every panel prompt: task, solution and criterion (a MacGyver-style item)."""
    task = ("You are camping and the zip of your tent has broken in heavy rain. You have a roll of duct tape, a "
            "packet of safety pins, two tent pegs, a plastic bag and a pocket knife. Close the tent so that it "
            "keeps the rain out overnight without damaging the fabric further. ") * 2
    solution = ("Fold the two edges of the opening so they overlap by a few centimetres, pin them together every "
                "ten centimetres with the safety pins, then cover the pinned seam on the outside with the cut-open "
                "plastic bag held by strips of duct tape that stick only to the bag, so the rain runs off. ") * 2
    criterion = "CRITERION 'feasible': the solution can be carried out with the listed items by one person."
    return f"TASK:\n{task}\n\nPROPOSED SOLUTION:\n{solution}\n\n{criterion}"


def panel_seconds(model: str, rounds: int, max_tokens: int) -> tuple[float, float, bool]:
    """(seconds per item without reuse, with reuse, whether both gave the same replies)."""
    shared = panel_item()
    cfg = GenerateConfig(n=1, temperature=0.0, max_tokens=max_tokens)

    def run(lm: TransformersBackend) -> list[str]:
        said: dict[str, str] = {}
        replies = []
        for r in range(1, rounds + 1):
            prompts = [[{"role": "user", "content": f"{shared}\n\n{role}\nRound {r}. Earlier: {said.get(a, '-')}\n"
                         "Is the solution feasible? Verdict and one finding."}] for a, role in PANEL_ROLES.items()]
            out = lm.generate(prompts, cfg)
            said = {a: o[0].text for a, o in zip(PANEL_ROLES, out, strict=True)}
            replies += list(said.values())
        return replies

    full, fast = load(model, "auto", reuse=False), load(model, "auto", reuse=True)
    slow_s, a = timed(lambda: run(full))
    fast_s, b = timed(lambda: run(fast))
    return slow_s, fast_s, a == b


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    ap.add_argument("--prefill-tokens", type=int, default=128)
    ap.add_argument("--decode-rows", type=int, default=4)
    ap.add_argument("--decode-tokens", type=int, default=16)
    ap.add_argument("--rubric-model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--panel-model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--panel-rounds", type=int, default=2)
    ap.add_argument("--panel-max-tokens", type=int, default=16)
    ap.add_argument("--skip", nargs="*", default=[], choices=["throughput", "rubric", "panel"])
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"uptime at start: {uptime()}")
    print(f"dtype 'auto' resolves to {resolve_dtype('auto')} on this CPU")
    if "throughput" not in args.skip:
        rows = []
        for m in args.models:
            for d in ("float32", "bfloat16"):
                rows.append(throughput(m, d, args.prefill_tokens, args.decode_rows, args.decode_tokens))
                gc.collect()
        table = pd.DataFrame(rows)
        for col in [c for c in table.columns if "tok/s" in c]:
            ratio = table.groupby("model")[col].transform(lambda s: s.iloc[1] / s.iloc[0])
            table[f"{col.split()[0]} bf16/fp32"] = ratio
        print(f"\n1. Throughput (prefill {args.prefill_tokens} tokens; decode {args.decode_tokens} tokens per row)")
        print(table.round(2).to_string(index=False))
    if "rubric" not in args.skip:
        r = rubric_seconds(args.rubric_model)
        print(f"\n2. Rubric judge, {args.rubric_model}, one HANNA story ({r['tokens']} prompt tokens), 5 dimensions, "
              f"expected mode, s/story: engine before issue 15 {r['before']:.1f}, this engine without prefix reuse "
              f"{r['no reuse']:.1f}, with prefix reuse {r['reuse']:.1f}; speed-up of reuse "
              f"{r['before'] / r['reuse']:.2f}x over before, {r['no reuse'] / r['reuse']:.2f}x over no reuse "
              f"(largest digit log-prob difference {r['diff']:.1e}). Sampled mode (n={SAMPLING.n}, "
              f"<= {SAMPLING.max_tokens} tokens), s/story: before (model.generate) {r['sampled before']:.1f}, "
              f"with prefix reuse {r['sampled']:.1f}; speed-up {r['sampled before'] / r['sampled']:.2f}x")
    if "panel" not in args.skip:
        slow, fast, same = panel_seconds(args.panel_model, args.panel_rounds, args.panel_max_tokens)
        print(f"\n3. Judge panel, {args.panel_model}, 3 agents x {args.panel_rounds} rounds, greedy replies of "
              f"<= {args.panel_max_tokens} tokens: without prefix reuse {slow:.1f} s/item, with {fast:.1f} s/item, "
              f"speed-up {slow / fast:.2f}x (same replies: {same})")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s; uptime at end: {uptime()}")


if __name__ == "__main__":
    main()
