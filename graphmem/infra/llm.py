"""One optional OpenAI-compatible chat-completions call, for summaries only.

graphmem works without any LLM; when an endpoint is configured (`settings.llm`),
`memory_summarize` and (with `GRAPHMEM_LLM_WRITE_SUMMARIES`) per-memory summaries ask it, and
fall back to the extractive summary on any failure.
"""

from __future__ import annotations

import json
import urllib.request


def complete(
    url: str,
    model: str | None,
    api_key: str | None,
    system: str,
    user: str,
    *,
    timeout: float = 20.0,
    max_tokens: int = 300,
) -> str:
    """The completion's text; raises on any failure (the caller falls back)."""
    url = url.rstrip("/")
    if not url.endswith("/chat/completions"):
        url += "/chat/completions"
    body = {
        "model": model or "default",
        "temperature": 0,
        "max_tokens": max_tokens,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        data = json.loads(resp.read())
    text = data["choices"][0]["message"]["content"]
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty completion")
    return text.strip()
