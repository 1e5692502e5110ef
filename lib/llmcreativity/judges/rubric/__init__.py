"""The LLM Review paper's rubric judge: five creativity dimensions, each scored 0-5.

Two estimators of one dimension's score, on the same prompt:

- **sampled** (the paper's): sample the judge's reply `sampling.n` times, read a score from each,
  average the readable ones, s = (1/R) sum_r s_r. A reply with no readable score is retried
  with a reminder; if it still has none, that repeat is recorded as missing together with the raw
  reply, never turned into a number.
- **expected**: read the judge's next-token distribution over the answers "0".."5" once and report
  E[s] = sum_{k=0..5} k p(k | prompt) (renormalized over the six digits); no sampling noise, one
  forward pass. `coverage` = sum_k p(k | prompt) says how much of the model's mass went to a digit.

The five prompts of one story share their prefix (system text, writing prompt, story) and differ only
in the closing instruction naming the dimension, so a backend with prefix caching (the local transformers
backend, vLLM, llama.cpp server, OpenAI) reuses the story's encoding across dimensions; both modes send the
five prompts as one batch.
"""

from .dimensions import DIMENSIONS, SCALE, Dimension
from .grading_run import run_rubric
from .judge import SAMPLING, RubricJudge
from .prompt import ANSWERS, REMINDER, SYSTEM, parse_score, rubric_prompt
from .rubric_scores import MODES, Mode, RubricScore, expected_score, mean_of_samples, read_scores

__all__ = ["ANSWERS", "DIMENSIONS", "MODES", "REMINDER", "SAMPLING", "SCALE", "SYSTEM", "Dimension", "Mode",
           "RubricJudge",
           "RubricScore", "expected_score", "mean_of_samples", "parse_score", "read_scores", "rubric_prompt",
           "run_rubric"]
