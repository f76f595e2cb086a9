"""Presidio on the firewall's labelled PII set; run by bench/firewall.py --presidio-python.

Standalone on purpose: it imports nothing from graphmem, so it can run under an interpreter that
has presidio-analyzer (not a graphmem dependency) and nothing else. Presidio runs offline with a
blank spaCy English pipeline (saved to a temporary directory, because Presidio loads pipelines by
name or path): its pattern recognisers need no statistical model. Phone numbers are matched for
the regions our set contains. Output: one JSON object on stdout.

Scoring matches bench/firewall.py: a labelled value is found when a result of the mapped type
covers its span; types Presidio has no recogniser for are reported as such.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from importlib.metadata import version

# Presidio entity -> graphmem PII type
MAPPING = {
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone",
    "CREDIT_CARD": "bank_card",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ip_address",
}
REGIONS = ("US", "GB", "DE", "FR", "JP", "AU", "IN", "RU", "BR", "HK", "CA", "SG", "ES", "CN")


def build():  # type: ignore[no-untyped-def]
    import spacy
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    path = tempfile.mkdtemp() + "/blank_en"
    spacy.blank("en").to_disk(path)
    nlp = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": path}],
        }
    ).create_engine()
    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(nlp_engine=nlp, languages=["en"])
    registry.remove_recognizer("PhoneRecognizer")
    registry.add_recognizer(PhoneRecognizer(supported_regions=REGIONS))
    return AnalyzerEngine(nlp_engine=nlp, registry=registry, supported_languages=["en"])


def main(path: str) -> None:
    t0 = time.perf_counter()
    engine = build()
    engine.analyze("warm up a@b.co 4111111111111111", language="en", entities=list(MAPPING))
    init_s = time.perf_counter() - t0
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    per: dict[str, dict[str, int]] = {}
    negatives = flagged = 0
    times = []
    for r in rows:
        t = time.perf_counter()
        results = engine.analyze(r["text"], language="en", entities=list(MAPPING))
        times.append((time.perf_counter() - t) * 1000)
        found = [(MAPPING[x.entity_type], x.start, x.end) for x in results]
        if not r["entities"]:
            negatives += 1
            flagged += int(bool(found))
        for e in r["entities"]:
            typ = e["type"].lower()
            i = r["text"].find(e["value"])
            hit = i >= 0 and any(
                ft == typ and s <= i and i + len(e["value"]) <= en for ft, s, en in found
            )
            keys = [typ, "overall"] + (["supported_overall"] if typ in MAPPING.values() else [])
            for k in keys:
                c = per.setdefault(k, {"n": 0, "found": 0})
                c["n"] += 1
                c["found"] += int(hit)
    times.sort()
    recall = {
        k: {**v, "recall": v["found"] / v["n"]}
        for k, v in per.items()
        if k in MAPPING.values() or k in ("overall", "supported_overall")
    }
    print(
        json.dumps(
            {
                "version": version("presidio-analyzer"),
                "supported": sorted(MAPPING.values()),
                "recall": recall,
                "negatives": negatives,
                "negatives_flagged": flagged,
                "p50_ms": times[len(times) // 2],
                "p95_ms": times[int(len(times) * 0.95)],
                "init_s": init_s,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
