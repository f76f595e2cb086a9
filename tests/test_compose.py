"""compose.yaml's structure. No Docker engine runs in CI, so the file itself is what is tested;
every service it names is exercised natively elsewhere (MariaDB for mysql:8.0, Redis, Neo4j, and
the Qdrant server adapter through qdrant-client's local mode)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))
SERVICES = COMPOSE["services"]
CORE_SERVICES = {n for n, s in SERVICES.items() if not s.get("profiles")}
MONITORING_SERVICES = {n for n, s in SERVICES.items() if "monitoring" in s.get("profiles", [])}


def _ports(service: str) -> set[str]:
    return {str(p).split(":", 1)[1] for p in SERVICES[service].get("ports", [])}


def test_every_service_image_and_port() -> None:
    assert {"mysql", "redis", "qdrant", "neo4j", "graphmem"} == CORE_SERVICES
    assert {"prometheus", "grafana"} == MONITORING_SERVICES
    assert set(SERVICES) == CORE_SERVICES | MONITORING_SERVICES
    assert SERVICES["mysql"]["image"] == "mysql:8.0"
    assert SERVICES["redis"]["image"] == "redis:7-alpine"
    assert SERVICES["qdrant"]["image"].startswith("qdrant/qdrant")
    assert SERVICES["neo4j"]["image"].startswith("neo4j:5")
    assert SERVICES["graphmem"]["build"] == "."
    assert _ports("mysql") == {"3306:3306"}
    assert _ports("redis") == {"6379:6379"}
    assert _ports("qdrant") == {"6333:6333", "6334:6334"}
    assert _ports("neo4j") == {"7474:7474", "7687:7687"}
    assert _ports("graphmem") == {"8765:8765"}
    for svc in SERVICES.values():  # published on loopback only
        assert all(str(p).startswith("127.0.0.1:") for p in svc.get("ports", []))


def test_every_service_has_a_healthcheck_and_graphmem_waits_for_them() -> None:
    for name, svc in SERVICES.items():
        assert svc["healthcheck"]["test"], name
    deps = SERVICES["graphmem"]["depends_on"]
    assert deps == {s: {"condition": "service_healthy"} for s in
                    ("mysql", "redis", "qdrant", "neo4j")}


def test_volumes_init_sql_and_store_settings() -> None:
    assert set(COMPOSE["volumes"]) == {"mysql-data", "redis-data", "qdrant-data", "neo4j-data",
                                       "graphmem-data", "prometheus-data", "grafana-data"}
    mysql = SERVICES["mysql"]
    assert "./init.sql:/docker-entrypoint-initdb.d/01-graphmem.sql:ro" in mysql["volumes"]
    assert "--character-set-server=utf8mb4" in mysql["command"]
    redis_cmd = " ".join(SERVICES["redis"]["command"])
    assert "--appendonly yes" in redis_cmd and "--maxmemory 512mb" in redis_cmd
    assert "--maxmemory-policy allkeys-lru" in redis_cmd
    env = SERVICES["graphmem"]["environment"]
    assert env["GRAPHMEM_RECORDS_BACKEND"] == "mysql"
    assert env["GRAPHMEM_VECTOR_BACKEND"] == "qdrant"
    assert env["GRAPHMEM_REDIS_URL"].startswith("redis://redis:6379")
    assert (ROOT / "Dockerfile").exists()


def test_secrets_come_from_env_and_the_example_holds_none() -> None:
    text = (ROOT / "compose.yaml").read_text("utf-8")
    needed = set(re.findall(r"(?<!\$)\$\{(\w+)", text))  # $${...} is the container's own
    example = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    )
    assert needed <= set(example)
    assert all("change-me" in v or "replace" in v for v in example.values())
    assert "NEO4J_AUTH: neo4j/${NEO4J_PASSWORD" in text
    assert ".env" in (ROOT / ".gitignore").read_text("utf-8").splitlines()


def test_monitoring_profile_scrapes_graphmem_and_provisions_the_dashboard() -> None:
    prom, grafana = SERVICES["prometheus"], SERVICES["grafana"]
    assert prom["image"].startswith("prom/prometheus") and _ports("prometheus") == {"9090:9090"}
    assert grafana["image"].startswith("grafana/grafana") and _ports("grafana") == {"3000:3000"}
    mounts = {v.split(":")[0]: v.split(":")[1] for v in prom["volumes"] + grafana["volumes"]}
    for src in mounts:  # every bind-mounted file or directory is in the repository
        if src.startswith("./"):
            assert (ROOT / src).exists(), src
    scrape = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text("utf-8"))
    job = next(j for j in scrape["scrape_configs"] if j["job_name"] == "graphmem")
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["graphmem:8765"]  # the compose service
    ds_dir = ROOT / "deploy/grafana/provisioning/datasources"
    ds = yaml.safe_load((ds_dir / "prometheus.yaml").read_text("utf-8"))["datasources"][0]
    assert ds["url"] == "http://prometheus:9090"
    dashboard = (ROOT / "deploy/grafana/dashboards/graphmem.json").read_text("utf-8")
    assert f'"uid": "{ds["uid"]}"' in dashboard  # panels query the provisioned datasource
