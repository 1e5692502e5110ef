"""The tests' one fake OpenAI-compatible server on loopback (http.server in a thread; no model runs).

`FakeServer(**behaviour)` serves `/v1/models`, `/v1/chat/completions`, `/v1/completions` and `/v1/embeddings`;
each keyword switches one behaviour (a missing capability, a shifted echo, a required key, a busy or slow server).

- Replies are deterministic functions of the request (its prompt, seed, temperature and sample index), so a run and
  its resumed twin get the same answers: "Score: k" with k in 0..5, its first token's alternatives drawn from
  `TOP_TOKENS` (yes/no judges, rubric digits).
- Echoed prompts: tokens are digit runs, ", ", "<s>" and single other characters; token i has log-probability
  -(i + 1) / 100, so a test can tell which tokens were picked.
- Every POST is held `delay` seconds while counted in flight, so requests sent together overlap on the server;
  `max_in_flight` is the most it held at once.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

BOS = "<s>"
"""The fake model's BOS token text."""

TOP_TOKENS = ["Yes", "No", "yes", "no", "0", "1", "2", "3", "4", "5"]
"""The alternatives listed for a reply's first token (yes/no judges, rubric digits)."""


def fake_tokens(text: str) -> list[str]:
    """The fake tokenizer: runs of digits, ", ", "<s>" and single characters."""
    return re.findall(r"<s>|\d+|, |.", text, flags=re.S)


def _hash(*parts) -> int:
    return zlib.crc32(json.dumps(parts, sort_keys=True).encode())


@dataclass
class FakeServer:
    """Behaviour switches; `url` is set once started (use as a context manager)."""

    models: list[str] | None = field(default_factory=lambda: ["fake-model"])
    """Ids `GET /v1/models` lists; None answers 404 (a server that lists nothing)."""
    root: str = ""
    """vLLM's `root` field of each listed model (the weights), when non-empty."""
    response_model: str = ""
    """The `model` field of answers; empty echoes the asked name."""
    api_key: str | None = None
    """When set, every request needs `Authorization: Bearer <api_key>` (else HTTP 401)."""
    logprobs: bool = True
    """Whether chat answers carry log-probabilities."""
    top_logprobs: bool = True
    """Whether they carry top alternatives."""
    n: bool = True
    """Whether `n` is honoured."""
    echo: Literal["aligned", "shifted", "shifted-bos", "none"] = "aligned"
    """Prompt log-probabilities: correct, shifted by one (unfixable), shifted unless the prompt starts with BOS,
    or absent."""
    embedding_dim: int | None = 3
    """Length of embedding rows; None answers 404."""
    busy: int = 0
    """How many POSTs after this is set answer HTTP 503 (a server that is briefly overloaded)."""
    delay: float = 0.0
    """Seconds every POST is held, counted in flight, before it is answered."""
    requests: list[tuple[str, dict]] = field(default_factory=list)
    """(path, body) of every request received (a GET's body is {})."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """Headers of every request received."""
    max_in_flight: int = 0
    """The most POSTs held at once."""
    url: str = ""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0

    def __enter__(self) -> FakeServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self) -> list[str]:
        """The paths requested, in order."""
        return [p for p, _ in self.requests]

    def posts(self) -> list[dict]:
        """The JSON body of every request but the model listing (failed ones included), in arrival order."""
        return [body for p, body in self.requests if p != "/v1/models"]

    def reset(self) -> None:
        """Forget the requests and the peak in flight (e.g. the probes a role's backend sent when it was built)."""
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.max_in_flight = 0

    def _post(self, path: str, body: dict) -> tuple[int, dict]:
        """The answer to one authorized POST, after `delay` seconds counted in flight."""
        with self._lock:
            failing = self.busy > 0
            self.busy -= failing
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            time.sleep(self.delay)
            if failing:
                return 503, {"error": {"message": "busy, try again"}}
            handler = {"/v1/chat/completions": self._chat, "/v1/completions": self._completion,
                       "/v1/embeddings": self._embeddings}.get(path)
            return handler(body) if handler else (404, {"error": {"message": "not found"}})
        finally:
            with self._lock:  # before the answer leaves, so the client's next request never overlaps it
                self._in_flight -= 1

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep the test output clean
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorized(self, body: dict) -> bool:
                with server._lock:
                    server.requests.append((self.path, body))
                    server.headers.append(dict(self.headers))
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    self._send(401, {"error": {"message": "Invalid API key"}})
                    return False
                return True

            def do_GET(self) -> None:
                if not self._authorized({}):
                    return
                if self.path == "/v1/models" and server.models is not None:
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", **({"root": server.root} if server.root else {})}
                        for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self._authorized(body):
                    self._send(*server._post(self.path, body))

        return Handler

    def _model(self, body: dict) -> str:
        return self.response_model or body.get("model", "")

    def _reply(self, body: dict, i: int) -> tuple[str, list[str], list[float], dict[str, float]]:
        """Sample i's text, its tokens and their log-probabilities, and its first token's alternatives."""
        prompt = body.get("messages") or body.get("prompt")
        text = f"Score: {_hash(prompt, body.get('seed', 0), i, body.get('temperature')) % 6}"
        first, *rest = text.split(" ")
        tokens = [first] + [" " + t for t in rest]
        top_k = int(body.get("top_logprobs") or (body.get("logprobs") if "prompt" in body else 0) or 0)
        top = {t: -(1 + _hash(prompt, t) % 300 / 100) for t in TOP_TOKENS[:top_k if self.top_logprobs else 0]}
        return text, tokens, [-0.1 * (j + 1) for j in range(len(tokens))], top

    def _usage(self, body: dict, n: int) -> dict:
        prompt = body.get("messages") or body.get("prompt")
        return {"prompt_tokens": len(json.dumps(prompt)) // 4, "completion_tokens": 2 * n}

    def _chat(self, body: dict) -> tuple[int, dict]:
        n = int(body.get("n") or 1) if self.n else 1
        choices = []
        for i in range(n):
            text, tokens, logprobs, top = self._reply(body, i)
            items = [{"token": t, "logprob": v} for t, v in zip(tokens, logprobs, strict=True)]
            if top:
                items[0]["top_logprobs"] = [{"token": t, "logprob": v} for t, v in top.items()]
            choices.append({"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": text},
                            "logprobs": {"content": items} if body.get("logprobs") and self.logprobs else None})
        return 200, {"model": self._model(body), "choices": choices, "usage": self._usage(body, n)}

    def _completion(self, body: dict) -> tuple[int, dict]:
        if body.get("echo"):
            return self._echo(body)
        n = int(body.get("n") or 1) if self.n else 1
        choices = []
        for i in range(n):  # the legacy logprobs layout
            text, tokens, logprobs, top = self._reply(body, i)
            lp = {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": [top] if top else None}
            choices.append({"index": i, "finish_reason": "stop", "text": text,
                            "logprobs": lp if body.get("logprobs") is not None and self.logprobs else None})
        return 200, {"model": self._model(body), "choices": choices, "usage": self._usage(body, n)}

    def _echo(self, body: dict) -> tuple[int, dict]:
        prompt = body["prompt"]
        if self.echo == "none":
            return 200, {"model": self._model(body), "choices": [{"text": prompt, "logprobs": None}]}
        shifted = self.echo == "shifted" or (self.echo == "shifted-bos" and not prompt.startswith(BOS))
        text = prompt[len(BOS):] if self.echo == "shifted-bos" and prompt.startswith(BOS) else prompt
        tokens = fake_tokens(text)
        offsets = [sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
        logprobs: list[float | None] = [-(i + 1) / 100 for i in range(len(tokens))]
        tops: list[dict | None] = []
        for i, tok in enumerate(tokens):
            predicted = tokens[i + 1] if shifted and i + 1 < len(tokens) else ("?" if shifted else tok)
            tops.append({predicted: -0.05, tok: -4.0} if predicted != tok else {tok: -0.05, "?": -4.0})
        logprobs[0], tops[0] = None, None
        lp = {"tokens": tokens, "text_offset": offsets, "token_logprobs": logprobs, "top_logprobs": tops}
        return 200, {"model": self._model(body), "choices": [{"text": text, "logprobs": lp}],
                     "usage": {"prompt_tokens": len(tokens)}}

    def _embeddings(self, body: dict) -> tuple[int, dict]:
        if self.embedding_dim is None:
            return 404, {"error": {"message": "embeddings are not served"}}
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        rows = [{"index": i, "embedding": [float(len(t) + k) for k in range(self.embedding_dim)]}
                for i, t in enumerate(texts)]
        return 200, {"model": self._model(body), "data": rows}
