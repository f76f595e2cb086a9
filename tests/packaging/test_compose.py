"""compose.yaml's structure. No Docker engine runs in CI, so the file itself is what is tested;
every service it names is exercised natively elsewhere (MariaDB for MySQL, Redis, Neo4j 5.26,
and the Qdrant server adapter through qdrant-client's local mode), and the image's entrypoint
and healthcheck scripts run for real in tests/packaging/test_docker_entrypoint.py and
tests/mcp/test_healthz.py.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from graphmem.stores.records.mysql import parse_mysql_url, schema_sql

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_TEXT = (ROOT / "compose.yaml").read_text("utf-8")
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
SERVICES = COMPOSE["services"]
CORE_SERVICES = {n for n, s in SERVICES.items() if not s.get("profiles")}
MONITORING_SERVICES = {n for n, s in SERVICES.items() if "monitoring" in s.get("profiles", [])}
# A password with every character that breaks a URL when pasted into one.
NASTY = "p@ss/w:rd#?%&+ é"


def _ports(service: str) -> set[str]:
    return {str(p).split(":", 1)[1] for p in SERVICES[service].get("ports", [])}


def _binds() -> dict[str, str]:
    """Every bind mount of every service: host path -> container path."""
    out = {}
    for svc in SERVICES.values():
        for v in svc.get("volumes", []):
            src, dst = v.split(":")[:2]
            if src.startswith("./"):
                out[src] = dst
    return out


def interpolate(value: str, env: dict[str, str]) -> str:
    """What compose makes of `${NAME}`, `${NAME:?message}` and `$$` in a value."""
    return re.sub(
        r"\$\$|\$\{(\w+)(?::?[?-][^}]*)?\}",
        lambda m: "$" if m[0] == "$$" else env.get(m[1], ""),
        value,
    )


def test_every_service_image_and_port() -> None:
    assert {"mysql", "redis", "qdrant", "neo4j", "graphmem"} == CORE_SERVICES
    assert {"prometheus", "grafana"} == MONITORING_SERVICES
    assert set(SERVICES) == CORE_SERVICES | MONITORING_SERVICES
    assert SERVICES["mysql"]["image"] == "mysql:8.4"  # the LTS line
    assert SERVICES["redis"]["image"] == "redis:7.2-alpine"
    assert SERVICES["neo4j"]["image"] == "neo4j:5.26-community"  # LTS; scripts/neo4j-launcher
    assert re.fullmatch(r"qdrant/qdrant:v1\.\d+\.\d+", SERVICES["qdrant"]["image"])
    assert SERVICES["graphmem"]["build"] == "."
    assert _ports("mysql") == {"3306:3306"}
    assert _ports("redis") == {"6379:6379"}
    assert _ports("qdrant") == {"6333:6333", "6334:6334"}
    assert _ports("neo4j") == {"7474:7474", "7687:7687"}
    assert _ports("graphmem") == {"8765:8765"}
    for svc in SERVICES.values():  # published on loopback only
        assert all(str(p).startswith("127.0.0.1:") for p in svc.get("ports", []))


def test_every_image_is_pinned_to_a_release_line() -> None:
    """A floating tag (latest, or a bare major) changes what `up` runs without any change
    here; a release line (major.minor) still takes its patch releases."""
    for name, svc in SERVICES.items():
        image = svc["image"]
        assert ":" in image, f"{name}: {image} has no tag"
        tag = image.rsplit(":", 1)[1]
        assert "latest" not in tag, f"{name}: {image}"
        assert re.match(r"v?\d+\.\d+", tag), f"{name}: {image} is not pinned to major.minor"
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    assert SERVICES["graphmem"]["image"] == f"graphmem:{version}"


def _locked_version(package: str) -> str:
    """The version the image installs: the production lock's pin, else (before the lock
    exists) the installed one."""
    lock = ROOT / "requirements" / "production.txt"
    if lock.exists():
        m = re.search(
            rf"^{package.replace('-', '[-_]')}==([\w.]+)", lock.read_text("utf-8"), re.I | re.M
        )
        assert m, f"{package} is not pinned in {lock}"
        return m[1]
    return metadata.version(package)


def test_qdrant_server_matches_the_locked_client() -> None:
    """qdrant-client warns on every connection (and may refuse newer API fields) when the
    server's minor version is more than one away from its own."""
    server = SERVICES["qdrant"]["image"].split(":v", 1)[1]
    client = _locked_version("qdrant-client")
    s_major, s_minor = (int(x) for x in server.split(".")[:2])
    c_major, c_minor = (int(x) for x in client.split(".")[:2])
    assert s_major == c_major and abs(s_minor - c_minor) <= 1, (server, client)
    # and every client the [qdrant] extra allows: ">=1.18,<1.21" -> minors 18..20
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    spec = extra["optional-dependencies"]["qdrant"][0]
    low = re.search(r">=(\d+)\.(\d+)", spec)
    high = re.search(r"<(\d+)\.(\d+)", spec)
    assert low and high, spec
    allowed = range(int(low[2]), int(high[2]))  # minors below the exclusive bound
    assert int(low[1]) == int(high[1]) == s_major, spec
    assert all(abs(m - s_minor) <= 1 for m in allowed), (server, spec)


def test_every_service_has_a_healthcheck_and_graphmem_waits_for_them() -> None:
    for name, svc in SERVICES.items():
        assert svc["healthcheck"]["test"], name
    deps = SERVICES["graphmem"]["depends_on"]
    assert deps == {
        s: {"condition": "service_healthy"} for s in ("mysql", "redis", "qdrant", "neo4j")
    }


def test_graphmem_healthcheck_is_the_images_healthz_probe() -> None:
    test = SERVICES["graphmem"]["healthcheck"]["test"]
    assert test == ["CMD", "python", "/opt/graphmem/healthcheck.py"]
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    assert "COPY deploy/docker/entrypoint.py deploy/docker/healthcheck.py /opt/graphmem/" in (
        dockerfile
    )
    assert "/healthz" in (ROOT / "deploy/docker/healthcheck.py").read_text("utf-8")


def test_mysql_schema_is_mounted_from_the_packaged_file() -> None:
    """A symlink (init.sql at the top) becomes a one-line text file in a checkout without
    symlink support, and MySQL would run that text as the schema: mount the real file."""
    mysql = SERVICES["mysql"]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in mysql["volumes"]}
    src = mounts["/docker-entrypoint-initdb.d/01-graphmem.sql"]
    assert src == "./graphmem/stores/records/sql/mysql.sql"
    path = ROOT / src
    assert path.is_file() and not path.is_symlink()
    assert path.read_text("utf-8") == schema_sql()  # what the adapter applies on start


def test_every_bind_mount_is_a_real_path_in_the_repository() -> None:
    for src in _binds():
        assert (ROOT / src).exists(), src
        assert not (ROOT / src).is_symlink(), src


def test_volumes_and_store_settings() -> None:
    assert set(COMPOSE["volumes"]) == {
        "mysql-data",
        "redis-data",
        "qdrant-data",
        "neo4j-data",
        "graphmem-data",
        "prometheus-data",
        "grafana-data",
    }
    assert "graphmem-data:/data" in SERVICES["graphmem"]["volumes"]
    assert "--character-set-server=utf8mb4" in SERVICES["mysql"]["command"]
    redis_cmd = " ".join(SERVICES["redis"]["command"])
    assert "--appendonly yes" in redis_cmd and "--maxmemory 512mb" in redis_cmd
    assert "--maxmemory-policy allkeys-lru" in redis_cmd
    assert "--requirepass ${REDIS_PASSWORD" in redis_cmd
    env = SERVICES["graphmem"]["environment"]
    assert env["GRAPHMEM_DATA_DIR"] == "/data"
    assert env["GRAPHMEM_RECORDS_BACKEND"] == "mysql"
    assert env["GRAPHMEM_VECTOR_BACKEND"] == "qdrant"
    assert env["GRAPHMEM_GRAPH_BACKEND"] == "neo4j"
    assert env["GRAPHMEM_REDIS_URL"].startswith("redis://redis:6379")
    assert (ROOT / "Dockerfile").exists()


def test_no_secret_is_interpolated_into_a_url() -> None:
    """Compose pastes a .env value as it is; inside a URL, "@", "/" or ":" in it moves the
    host, port or path. Secrets travel as their own variables instead."""
    for svc in SERVICES.values():
        for key, value in (svc.get("environment") or {}).items():
            if key.endswith("_URL"):
                assert "$" not in str(value), f"{key}: {value}"


@pytest.mark.parametrize("password", [NASTY, "plain", "a:b@c/d", "%41%", "50%/:@@"])
def test_compose_passwords_reach_the_stores_byte_for_byte(password: str) -> None:
    """The graphmem service's environment as compose builds it from .env, then as the image's
    entrypoint hands it to the server: the URL parsers get the password back exactly."""
    import redis.connection

    from tests.helpers.docker import load_entrypoint

    entrypoint = load_entrypoint()
    dotenv = {k: password for k in ("MYSQL_PASSWORD", "REDIS_PASSWORD", "NEO4J_PASSWORD")}
    env = {k: interpolate(str(v), dotenv) for k, v in SERVICES["graphmem"]["environment"].items()}
    entrypoint.fill_passwords(env)
    mysql = parse_mysql_url(env["GRAPHMEM_MYSQL_URL"])
    assert (mysql["host"], mysql["port"], mysql["database"]) == ("mysql", 3306, "graphmem")
    assert (mysql["user"], mysql["password"]) == ("graphmem", password)
    rkw = redis.connection.parse_url(env["GRAPHMEM_REDIS_URL"])
    assert (rkw["host"], rkw["port"], rkw["db"]) == ("redis", 6379, 0)
    assert rkw["password"] == password
    assert env["GRAPHMEM_NEO4J_PASSWORD"] == password  # a setting of its own already
    # What the stores' own containers get: the same value, no URL in between.
    assert interpolate(SERVICES["mysql"]["environment"]["MYSQL_PASSWORD"], dotenv) == password
    redis_cmd = [interpolate(str(a), dotenv) for a in SERVICES["redis"]["command"]]
    assert redis_cmd[redis_cmd.index("--requirepass") + 1] == password
    assert interpolate(SERVICES["redis"]["environment"]["REDISCLI_AUTH"], dotenv) == password


def test_secrets_come_from_env_and_the_example_holds_none() -> None:
    needed = set(re.findall(r"(?<!\$)\$\{(\w+)", COMPOSE_TEXT))  # $${...} is the container's own
    example = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    )
    assert needed <= set(example)
    assert all("change-me" in v or "replace" in v for v in example.values())
    assert "NEO4J_AUTH: neo4j/${NEO4J_PASSWORD" in COMPOSE_TEXT
    assert ".env" in (ROOT / ".gitignore").read_text("utf-8").splitlines()
    assert ".env" in (ROOT / ".dockerignore").read_text("utf-8").splitlines()


def test_monitoring_profile_scrapes_graphmem_and_provisions_the_dashboard() -> None:
    prom, grafana = SERVICES["prometheus"], SERVICES["grafana"]
    assert prom["image"].startswith("prom/prometheus") and _ports("prometheus") == {"9090:9090"}
    assert grafana["image"].startswith("grafana/grafana") and _ports("grafana") == {"3000:3000"}
    scrape = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text("utf-8"))
    job = next(j for j in scrape["scrape_configs"] if j["job_name"] == "graphmem")
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["graphmem:8765"]  # the compose service
    ds_dir = ROOT / "deploy/grafana/provisioning/datasources"
    ds = yaml.safe_load((ds_dir / "prometheus.yaml").read_text("utf-8"))["datasources"][0]
    assert ds["url"] == "http://prometheus:9090"
    dashboard = (ROOT / "deploy/grafana/dashboards/graphmem.json").read_text("utf-8")
    assert f'"uid": "{ds["uid"]}"' in dashboard  # panels query the provisioned datasource
