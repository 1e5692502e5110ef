"""A scripted OpenAI-compatible server on loopback, for endpoint error and capability tests (no model runs).

`FakeServer(**behaviour)` serves `/v1/models`, `/v1/chat/completions`, `/v1/completions` and `/v1/embeddings`
with fixed answers; each keyword switches one behaviour (a missing capability, a shifted echo, a required key).
Tokens of a prompt are digits runs, ", " and single other characters; an echoed token i has log-probability
-(i + 1) / 100, so a test can tell which tokens were picked.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

BOS = "<s>"
"""The fake model's BOS token text."""


def fake_tokens(text: str) -> list[str]:
    """The fake tokenizer: runs of digits, ", ", "<s>" and single characters."""
    return re.findall(r"<s>|\d+|, |.", text, flags=re.S)


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
    requests: list[tuple[str, dict]] = field(default_factory=list)
    """(path, body) of every request received."""
    headers: list[dict[str, str]] = field(default_factory=list)
    """Headers of every request received."""
    url: str = ""

    def __enter__(self) -> FakeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorized(self) -> bool:
                server.headers.append(dict(self.headers))
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    self._send(401, {"error": {"message": "Invalid API key"}})
                    return False
                return True

            def do_GET(self):
                server.requests.append((self.path, {}))
                if not self._authorized():
                    return
                if self.path == "/v1/models" and server.models is not None:
                    self._send(200, {"object": "list", "data": [
                        {"id": m, "object": "model", **({"root": server.root} if server.root else {})}
                        for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body))
                if not self._authorized():
                    return
                if server.busy > 0:
                    server.busy -= 1
                    self._send(503, {"error": {"message": "busy"}})
                    return
                handler = {"/v1/chat/completions": server._chat, "/v1/completions": server._completion,
                           "/v1/embeddings": server._embeddings}.get(self.path)
                status, payload = handler(body) if handler else (404, {"error": {"message": "not found"}})
                self._send(status, payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self) -> list[str]:
        """The paths requested, in order."""
        return [p for p, _ in self.requests]

    def _model(self, body: dict) -> str:
        return self.response_model or body.get("model", "")

    def _chat(self, body: dict) -> tuple[int, dict]:
        n = body.get("n", 1) if self.n else 1
        choices = []
        for i in range(n):
            choice = {"index": i, "message": {"role": "assistant", "content": "OK"}, "finish_reason": "length"}
            if body.get("logprobs") and self.logprobs:
                tops = [{"token": "OK", "logprob": -0.1}, {"token": "No", "logprob": -2.5}][
                    :body.get("top_logprobs", 0) if self.top_logprobs else 0]
                choice["logprobs"] = {"content": [{"token": "OK", "logprob": -0.1, "top_logprobs": tops}]}
            choices.append(choice)
        return 200, {"model": self._model(body), "choices": choices, "usage": {"prompt_tokens": 3}}

    def _completion(self, body: dict) -> tuple[int, dict]:
        prompt = body["prompt"]
        if not body.get("echo"):
            return 200, {"model": self._model(body), "choices": [{"text": "1", "finish_reason": "length",
                                                                  "logprobs": None}]}
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
