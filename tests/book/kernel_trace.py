"""An IPython startup file (copied into the smoke replay's IPYTHONDIR, `tests/conftest.py`): every stage kernel of
the replay notes the first call of each traced function, so a test can ask which ones a chapter's run called.

`LLMC_TRACE_TARGETS` names a JSON file {source file: [first line of each traced function, ...]}; each traced code
object called in this kernel is appended once, as `file:line`, to `LLMC_TRACE_OUT/<stage>.called` (the stage from
`LLMCREATIVITY_STAGE`). A global trace function (`sys.settrace`, `threading.settrace`) sees each new Python frame,
never a C call or a line, and returns None, so no frame is traced further; it does no more than a dict lookup for
the frames of other functions. (A profile function, `sys.setprofile`, would also be called on every return and on
every call into C: numpy's, pandas', torch's.)
"""


def _llmc_start_trace() -> None:
    import json
    import os
    import sys
    import threading
    from pathlib import Path

    targets_file, out = os.environ.get("LLMC_TRACE_TARGETS"), os.environ.get("LLMC_TRACE_OUT")
    if not targets_file or not out:
        return
    wanted = {f: set(lines) for f, lines in json.loads(Path(targets_file).read_text()).items()}
    sink = Path(out) / f"{os.environ.get('LLMCREATIVITY_STAGE') or 'interactive'}.called"
    seen: set[tuple[str, int]] = set()
    lock = threading.Lock()

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        if event != "call":
            return None
        code = frame.f_code
        lines = wanted.get(code.co_filename)
        if lines is None or code.co_firstlineno not in lines:
            return None
        key = (code.co_filename, code.co_firstlineno)
        with lock:
            if key in seen:
                return None
            seen.add(key)
            with sink.open("a", encoding="utf-8") as f:
                f.write(f"{key[0]}:{key[1]}\n")
        return None

    threading.settrace(trace)
    sys.settrace(trace)


_llmc_start_trace()
del _llmc_start_trace
