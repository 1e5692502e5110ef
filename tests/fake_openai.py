"""A fake OpenAI-compatible server on loopback (http.server in a thread) that counts the requests in flight.

Every request sleeps `delay` seconds while counted, so requests sent together overlap on the server;
`max_in_flight` is the most it held at once. Replies are deterministic functions of the request (its
messages, seed and sample index), so a run and its resumed twin get the same answers. `fail_first` makes the
first requests answer 503 (retryable) to exercise retries.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOP_TOKENS = ["Yes", "No", "yes", "no", "0", "1", "2", "3", "4", "5"]
"""The alternatives listed for a reply's first token (yes/no judges, rubric digits)."""


def _hash(*parts) -> int:
    return zlib.crc32(json.dumps(parts, sort_keys=True).encode())


class FakeOpenAIServer:
    """`with FakeOpenAIServer(delay=0.05) as server:` ... `server.url` is the base URL (`.../v1`)."""

    def __init__(self, *, delay: float = 0.05, fail_first: int = 0, model: str = "fake-model"):
        self.delay = delay
        self.fail_first = fail_first
        self.model = model
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests = 0
        """Requests received (failed ones included)."""
        self.bodies: list[dict] = []
        """The JSON body of every POST, in arrival order."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        """Forget the counts (between two runs against one server)."""
        with self.lock:
            self.max_in_flight = self.requests = 0

    def reply(self, body: dict) -> dict:
        """The JSON answer to a /chat/completions or /completions body."""
        prompt = body.get("messages") or body.get("prompt")
        n, seed = int(body.get("n") or 1), body.get("seed", 0)
        top_k = int(body.get("top_logprobs") or (body.get("logprobs") if "prompt" in body else 0) or 0)
        choices = []
        for i in range(n):
            text = f"Score: {_hash(prompt, seed, i, body.get('temperature')) % 6}"
            tokens = text.split(" ")
            tokens = [tokens[0]] + [" " + t for t in tokens[1:]]
            logprobs = [-0.1 * (j + 1) for j in range(len(tokens))]
            top = {t: -(1 + _hash(prompt, t) % 300 / 100) for t in TOP_TOKENS[:top_k]}
            if "prompt" in body:  # /completions: the legacy logprobs layout
                lp = {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": [top] if top else None}
                choices.append({"index": i, "finish_reason": "stop", "text": text,
                                "logprobs": lp if body.get("logprobs") is not None else None})
                continue
            items = [{"token": t, "logprob": v} for t, v in zip(tokens, logprobs, strict=True)]
            if top:
                items[0]["top_logprobs"] = [{"token": t, "logprob": v} for t, v in top.items()]
            choices.append({"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": text},
                            "logprobs": {"content": items} if body.get("logprobs") else None})
        return {"model": self.model, "choices": choices,
                "usage": {"prompt_tokens": len(json.dumps(prompt)) // 4, "completion_tokens": 2 * n}}

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

            def do_GET(self) -> None:
                self._send(200, {"data": [{"id": server.model}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.bodies.append(body)
                    server.requests += 1
                    failing = server.requests <= server.fail_first
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay)
                    status, payload = (503, {"error": "busy, try again"}) if failing else (200, server.reply(body))
                finally:
                    with server.lock:  # before the answer leaves, so the client's next request never overlaps it
                        server.in_flight -= 1
                self._send(status, payload)

        return Handler
