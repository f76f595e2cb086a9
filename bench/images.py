"""Images as memories: recall of text in images, OCR character error rate, write cost.

Builds the image set at run time (nothing binary is committed): --images images (default 120)
of five kinds, screenshots, receipts, signs, slides and whiteboards, half in English and half
in Chinese, each drawn with Pillow from facts made for it (names, numbers, dates that no other
image holds) and then spoilt the way real pictures are: Gaussian blur, a small rotation, heavy
JPEG compression, or a "photo of a screen" (light text on a dark, noisy, slightly rotated
background). Every image carries 1-3 questions a user would ask about its text.

Two stores are filled in the same run from the same images:

* images: `MemoryService.write_image(user, bytes, caption)`: the caption an agent would give
  ("Photo of a receipt") and the text Tesseract reads (settings.images.ocr_languages, or
  --languages);
* baseline, a second store: the same caption written as a plain memory, which is what a memory
  without OCR can hold about an image. Twelve receipts captioned alike are twelve memories
  there (merging and updates are off in that store, so none of them swallows another), and a
  question hits when the right one of them is in the top 5.

Reported: hit@5 per language and kind (a question hits when its image is among the top 5), the
OCR character error rate per language (edit distance over the reference text, spaces removed
for Chinese and runs of spaces collapsed for English), and the CPU time of each write
(graphmem's process plus the Tesseract child), scaled to one megapixel.

Usage:
  python bench/images.py [--images 120] [--seed 7] [--out bench/results/images.json]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

FONTS = {
    "en": [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    ],
    "zh": ["/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"],
}
SIZE = (1250, 800)  # one megapixel
NOISES = ("clean", "blur", "rotate", "jpeg", "screen_photo")
CAPTIONS = {
    "screenshot": ("Screenshot from my screen", "屏幕截图"),
    "receipt": ("Photo of a receipt", "收据照片"),
    "sign": ("Photo of a sign", "告示牌照片"),
    "slide": ("A slide from the meeting", "会议上的一页幻灯片"),
    "whiteboard": ("Photo of the whiteboard", "白板照片"),
}

EN_A = "Amber Birch Cedar Delta Ember Falcon Granite Harbor Indigo Juniper Kestrel Linden".split()
EN_B = "Bakery Hardware Pharmacy Books Noodles Garage Florist Tailor Optics Market Deli".split()
EN_PLACE = "Platform Library Pool Museum Gym Lab Clinic Archive Studio Atrium Garden Hall".split()
EN_SVC = "billing search checkout gateway ledger mailer scheduler payroll uploader".split()
EN_PROJ = "Atlas Borealis Comet Dynamo Eclipse Fjord Glacier Helix Ion Jetstream".split()
EN_FEAT = ["offline mode", "dark theme", "bulk export", "voice notes", "team folders", "audit log"]
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MONTHS = "January February March April May June July August September October".split()
DIRS = "north south east west".split()

ZH_A = list("金银青白云海山松竹梅兰星")
ZH_B = ["面包店", "五金店", "药房", "书店", "面馆", "花店", "眼镜店", "超市", "茶馆"]
ZH_PLACE = ["游泳馆", "图书馆", "博物馆", "健身房", "实验室", "诊所", "档案室", "会议厅", "花园"]
ZH_SVC = ["支付服务", "搜索服务", "订单系统", "网关", "邮件服务", "调度器", "工资系统"]
ZH_PROJ = ["星火", "北斗", "长城", "昆仑", "天河", "青松", "明月", "飞鸿", "远航"]
ZH_FEAT = ["离线模式", "深色主题", "批量导出", "语音笔记", "团队文件夹", "审计日志"]
ZH_DAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
ZH_DIRS = ["东", "南", "西", "北"]


@dataclass
class Picture:
    """One image of the set: what is drawn, how it is spoilt, what is asked about it."""

    ident: str
    lang: str
    kind: str
    noise: str
    lines: list[str]
    questions: list[str]
    caption: str
    data: bytes = b""
    megapixels: float = 0.0
    memory_id: str = ""
    baseline_id: str = ""
    ocr_text: str = ""
    write_cpu: float = 0.0
    ocr_cpu: float = 0.0
    write_wall: float = 0.0
    hits: dict[str, list[bool]] = field(default_factory=dict)


def _unique(rng: random.Random, used: set[str], make: Any) -> Any:
    for _ in range(1000):
        value = make()
        key = json.dumps(value, ensure_ascii=False)
        if key not in used:
            used.add(key)
            return value
    raise RuntimeError("ran out of unique facts; fewer images")


def facts(kind: str, lang: str, rng: random.Random, used: set[str]) -> tuple[list[str], list[str]]:
    """The lines drawn and the questions asked, for one image."""
    c = rng.choice
    if lang == "en":
        if kind == "receipt":
            shop, total, item = _unique(
                rng,
                used,
                lambda: (
                    f"{c(EN_A)} {c(EN_B)}",
                    f"{rng.randint(5, 300)}.{rng.randint(10, 99)}",
                    c(EN_FEAT).split()[0],
                ),
            )
            no = rng.randint(1000, 9999)
            return (
                [
                    shop.upper(),
                    f"Receipt no. {no}",
                    f"1 x {item} kit   {total}",
                    f"TOTAL EUR {total}",
                    "Thank you",
                ],
                [f"How much did I pay at {shop}?", f"What was the total on the {shop} receipt?"],
            )
        if kind == "sign":
            place, day, d = _unique(
                rng, used, lambda: (f"{c(EN_A)} {c(EN_PLACE)}", c(DAYS), c(DIRS))
            )
            return (
                [f"{place} closed", f"until {day}", f"Please use the {d} entrance"],
                [f"Is the {place} open?", f"Which entrance should I use for the {place}?"],
            )
        if kind == "screenshot":
            svc, code, port = _unique(
                rng, used, lambda: (c(EN_SVC), rng.randint(400, 599), rng.randint(1024, 9999))
            )
            return (
                [
                    f"ERROR {code}",
                    f"{svc} service: connection refused",
                    f"host db-{port % 97}:{port}",
                    "Retry  Cancel",
                ],
                [
                    f"What error did the {svc} service show?",
                    f"Which port was the {svc} service refused on?",
                ],
            )
        if kind == "slide":
            proj, feat, month = _unique(rng, used, lambda: (c(EN_PROJ), c(EN_FEAT), c(MONTHS)))
            return (
                [f"{proj} roadmap", f"- {feat} ships in {month}", f"- owner: team {c(EN_A)}"],
                [f"When does {proj} ship {feat}?", f"What is on the {proj} roadmap?"],
            )
        who, day, topic = _unique(rng, used, lambda: (c(EN_A), c(DAYS), c(EN_FEAT)))
        return (
            [f"Sprint review {day}", f"{who}: fix {topic}", "Demo at 3 pm"],
            [f"Who is fixing {topic}?", f"What did {who} take on in the sprint?"],
        )
    if kind == "receipt":
        shop, total = _unique(rng, used, lambda: (c(ZH_A) + c(ZH_A) + c(ZH_B), rng.randint(8, 900)))
        return (
            [shop, f"小票号 {rng.randint(1000, 9999)}", f"合计 {total} 元", "谢谢惠顾"],
            [f"我在{shop}花了多少钱？", f"{shop}的小票合计多少？"],
        )
    if kind == "sign":
        place, day, d = _unique(rng, used, lambda: (c(ZH_A) + c(ZH_PLACE), c(ZH_DAYS), c(ZH_DIRS)))
        return (
            [f"{place}暂停开放", f"至{day}恢复", f"请走{d}门"],
            [f"{place}现在开放吗？", f"去{place}走哪个门？"],
        )
    if kind == "screenshot":
        svc, code = _unique(rng, used, lambda: (c(ZH_SVC), rng.randint(400, 599)))
        return (
            [f"错误 {code}", f"{svc}连接失败", "请稍后重试"],
            [f"{svc}报了什么错？", f"{svc}的错误码是多少？"],
        )
    if kind == "slide":
        proj, feat, month = _unique(rng, used, lambda: (c(ZH_PROJ), c(ZH_FEAT), rng.randint(1, 12)))
        return (
            [f"{proj}项目路线图", f"{month}月上线{feat}", "负责人：产品组"],
            [f"{proj}项目什么时候上线{feat}？", f"{proj}的路线图上有什么？"],
        )
    who, day, topic = _unique(rng, used, lambda: (c(ZH_A) + c(ZH_A), c(ZH_DAYS), c(ZH_FEAT)))
    return (
        [f"{day}迭代评审", f"{who}负责{topic}", "下午三点演示"],
        [f"谁负责{topic}？", f"{who}这次迭代做什么？"],
    )


def draw(p: Picture, rng: random.Random) -> bytes:
    """The picture as it would reach the agent: drawn, then spoilt by its noise."""
    dark = p.noise == "screen_photo"
    bg = (20, 24, 30) if dark else (rng.randint(235, 255),) * 3
    ink = (225, 230, 235) if dark else (rng.randint(0, 40),) * 3
    img = Image.new("RGB", SIZE, bg)
    d = ImageDraw.Draw(img)
    size = rng.randint(44, 64)
    font = ImageFont.truetype(rng.choice(FONTS[p.lang]), size)
    y = rng.randint(60, 140)
    x = rng.randint(60, 160)
    for i, line in enumerate(p.lines):
        f = ImageFont.truetype(font.path, int(size * 1.3)) if i == 0 else font
        d.text((x, y), line, fill=ink, font=f)
        y += int(f.size * 1.6)
    if p.noise == "blur":
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(1.0, 1.8)))
    elif p.noise in ("rotate", "screen_photo"):
        angle = rng.uniform(2, 6) * rng.choice((-1, 1))
        img = img.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=bg)
    if p.noise == "screen_photo":
        noise = Image.effect_noise(SIZE, 28).convert("RGB")
        img = Image.blend(img, noise, 0.12).filter(ImageFilter.GaussianBlur(0.8))
    buf = io.BytesIO()
    if p.noise in ("jpeg", "screen_photo"):
        img.save(buf, format="JPEG", quality=rng.randint(15, 30) if p.noise == "jpeg" else 60)
    else:
        img.save(buf, format="PNG")
    return buf.getvalue()


def build(n: int, seed: int) -> list[Picture]:
    rng = random.Random(seed)
    used: set[str] = set()
    kinds = list(CAPTIONS)
    out = []
    for i in range(n):
        lang = "en" if i % 2 == 0 else "zh"
        kind = kinds[(i // 2) % len(kinds)]
        noise = NOISES[(i // 10) % len(NOISES)]
        lines, questions = facts(kind, lang, rng, used)
        caption = CAPTIONS[kind][0 if lang == "en" else 1]
        p = Picture(
            f"img{i:03d}", lang, kind, noise, lines, questions[: rng.randint(1, 3)], caption
        )
        p.data = draw(p, rng)
        p.megapixels = SIZE[0] * SIZE[1] / 1e6
        out.append(p)
    return out


def cer(reference: str, read: str, lang: str) -> tuple[int, int]:
    """(edits, reference characters): Levenshtein over normalised text."""

    def norm(s: str) -> str:
        return "".join(s.split()) if lang == "zh" else " ".join(s.split())

    a, b = norm(reference), norm(read)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1], len(a)


def cpu() -> tuple[float, float]:
    """(this process, its waited-for children) CPU seconds, user + system."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def run(n: int, seed: int, languages: str | None) -> dict[str, Any]:
    from graphmem import MemoryService, Settings
    from graphmem.images import ImageSettings
    from graphmem.settings.sections import TemporalSettings

    pictures = build(n, seed)
    images = ImageSettings(_env_file=None, **({"ocr_languages": languages} if languages else {}))
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService(Settings(data_dir=Path(tmp) / "data", _env_file=None, images=images))
        base = MemoryService(
            Settings(
                data_dir=Path(tmp) / "baseline",
                _env_file=None,
                temporal=TemporalSettings(_env_file=None, enabled=False),
                lifecycle={"merge_on_write": False},
            ),
            embedder=svc.embedder,
        )
        base.write("warmup", "warm the models up before timing")
        svc.write("warmup", "warm the models up before timing")
        svc.write_image("warmup", pictures[0].data)
        baseline_cpu = []
        for p in pictures:
            s0, c0 = cpu()
            w0 = time.perf_counter()
            m = svc.write_image("images", p.data, p.caption)
            p.write_wall = time.perf_counter() - w0
            s1, c1 = cpu()
            p.write_cpu, p.ocr_cpu = (s1 - s0) + (c1 - c0), c1 - c0
            p.memory_id, p.ocr_text = m.id, m.content.split("\n", 1)[-1]
            s0, _ = cpu()
            p.baseline_id = base.write("baseline", p.caption).id
            baseline_cpu.append(cpu()[0] - s0)
        for p in pictures:
            for store, user, target in (
                (svc, "images", p.memory_id),
                (base, "baseline", p.baseline_id),
            ):
                found = [
                    [h.memory.id for h in store.search(user, q, 5, track_access=False).hits]
                    for q in p.questions
                ]
                p.hits[user] = [target in ids for ids in found]
        assert base.records.count("baseline") == n, "the baseline must keep every caption"
        base.close()
        svc.close()
    out = report(pictures, baseline_cpu, n, seed)
    out["ocr_languages"] = images.ocr_languages
    return out


def _rate(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def report(pictures: list[Picture], baseline_cpu: list[float], n: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "images": n,
        "seed": seed,
        "questions": sum(len(p.questions) for p in pictures),
    }
    hit: dict[str, Any] = {}
    for user in ("images", "baseline"):
        rows: dict[str, Any] = {"all": _rate([h for p in pictures for h in p.hits[user]])}
        for lang in ("en", "zh"):
            rows[lang] = _rate([h for p in pictures if p.lang == lang for h in p.hits[user]])
        for group in (*CAPTIONS, *NOISES):
            rows[group] = _rate(
                [h for p in pictures if group in (p.kind, p.noise) for h in p.hits[user]]
            )
        hit[user] = rows
    out["hit_at_5"] = hit
    errs: dict[str, Any] = {}
    for lang in ("en", "zh"):
        edits = chars = 0
        per_noise: dict[str, list[int]] = {}
        for p in pictures:
            if p.lang != lang:
                continue
            e, c = cer("\n".join(p.lines), p.ocr_text, lang)
            edits, chars = edits + e, chars + c
            acc = per_noise.setdefault(p.noise, [0, 0])
            acc[0] += e
            acc[1] += c
        errs[lang] = {
            "cer": round(edits / chars, 4) if chars else None,
            **{k: round(v[0] / v[1], 4) for k, v in per_noise.items() if v[1]},
        }
    out["ocr_cer"] = errs
    per_mp = [p.write_cpu / p.megapixels for p in pictures]
    out["write_cpu_s_per_megapixel"] = {
        "median": round(statistics.median(per_mp), 3),
        "p90": round(sorted(per_mp)[int(0.9 * (len(per_mp) - 1))], 3),
        "max": round(max(per_mp), 3),
        "ocr_median": round(statistics.median(p.ocr_cpu / p.megapixels for p in pictures), 3),
        "en_median": round(statistics.median(p.write_cpu for p in pictures if p.lang == "en"), 3),
        "zh_median": round(statistics.median(p.write_cpu for p in pictures if p.lang == "zh"), 3),
    }
    out["write_wall_s_median"] = round(statistics.median(p.write_wall for p in pictures), 3)
    out["baseline_write_cpu_s_median"] = round(statistics.median(baseline_cpu), 3)
    out["misses"] = [
        {"image": p.ident, "lang": p.lang, "kind": p.kind, "noise": p.noise, "question": q}
        for p in pictures
        for q, h in zip(p.questions, p.hits["images"], strict=True)
        if not h
    ][:40]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--images", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "images.json")
    ap.add_argument("--save-images", type=Path, help="also write the images here, to look at")
    ap.add_argument("--languages", help="Tesseract languages (default: the setting's)")
    args = ap.parse_args()
    if args.images < 10:
        ap.error("--images: at least 10")
    if args.save_images:
        args.save_images.mkdir(parents=True, exist_ok=True)
        for p in build(args.images, args.seed):
            ext = "jpg" if p.data[:2] == b"\xff\xd8" else "png"
            (args.save_images / f"{p.ident}-{p.lang}-{p.kind}-{p.noise}.{ext}").write_bytes(p.data)
    result = run(args.images, args.seed, args.languages)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1))
    print(
        json.dumps({k: v for k, v in result.items() if k != "misses"}, ensure_ascii=False, indent=1)
    )


if __name__ == "__main__":
    main()
