"""Resume after kill -9 on the real 135M model: nothing answered is lost, nothing is computed twice."""

import subprocess
import sys
import textwrap
import time

import pytest

from llmcreativity.llm import ResponseCache

pytestmark = pytest.mark.slow

RUN = textwrap.dedent("""
    import sys
    from llmcreativity.llm import GenerateConfig, get_backend
    lm = get_backend("smollm2-135m", cache=sys.argv[1])
    for k in range(8):
        (out,) = lm.generate([f"Story idea number {k}:"], GenerateConfig(n=2, temperature=0.9, max_tokens=6, seed=k))
        if not out[0].usage.cached:
            with open(sys.argv[2], "a") as log:
                log.write(f"{k}\\n")
""")


def test_real_model_run_killed_mid_way_resumes_from_the_cache(tmp_path):
    script, db, log = tmp_path / "run.py", tmp_path / "calls.sqlite", tmp_path / "computed.log"
    script.write_text(RUN)
    proc = subprocess.Popen([sys.executable, str(script), str(db), str(log)])
    deadline = time.time() + 300
    while time.time() < deadline and (not log.exists() or len(log.read_text().split()) < 3):
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    before = len(ResponseCache(db))
    assert before >= 6
    subprocess.run([sys.executable, str(script), str(db), str(log)], check=True, timeout=600)
    computed = log.read_text().split()
    assert sorted(set(computed), key=int) == [str(k) for k in range(8)]
    assert len(computed) == 8  # each prompt computed exactly once across both runs
    assert len(ResponseCache(db)) == 16
