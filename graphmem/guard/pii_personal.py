"""Recognisers for postal addresses and personal data: names, birthdays, health.

These kinds are kept by default; they matter when an operator sets them to mask or reject, and
then a false find alters a memory the user asked to keep. So every recogniser here is
conservative and needs structure or a cue:

- a postal address is a house number, capitalised street name and street suffix ("221B Baker
  Street"), optionally followed by a US city/state/ZIP or a UK postcode; a Chinese address is a
  province/city/district part followed by a road and a house number ("朝阳区建国路88号");
- a name is only a name after "my name is", "I'm called", "我叫", "名字是" (a Chinese name must
  start with a common surname: "我叫外卖" orders food) or after a title (Mr., Ms., Dr.);
- a birthday is a date after "birthday", "born on", "DOB", "生日", "出生": "my son's birthday
  party is on Friday" has no date, and a party's date is not a birthday;
- health data is a named condition or medication cue from a short lexicon.

Name and address recognisers need letter case, which the folded text has lost, so they take the
Canonical and read case from `sanitized` through its index map.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from graphmem.guard.canonical import Canonical

_A = re.ASCII


def _upper_at(c: Canonical, i: int) -> bool:
    j = c.index_map[i] if c.index_map is not None else i
    return j < len(c.sanitized) and c.sanitized[j].isupper()


# ------------------------------------------------------------------ postal addresses

_SUFFIX = (
    r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|"
    r"terrace|parkway|pkwy|highway|hwy|circle|cir|square|sq|close|crescent|gardens|mews|row"
)
_STREET = re.compile(
    r"(?<![0-9a-z.,/-])(\d{1,5}[a-z]?(?:-\d{1,5})?)\s+((?:[nsew]\.?\s+)?(?:[a-z][a-z'-]*\s+){0,3}?)"
    r"(" + _SUFFIX + r")\b\.?"
    r"(?:,?\s*(?:apt|apartment|suite|ste|unit|flat|#)\.?\s*#?[0-9a-z-]+)?"
    # US: ", Springfield, IL 62704"; UK: ", London SW1A 2AA"
    r"(?:,\s*[a-z][a-z .'-]{1,30}?,?\s+[a-z]{2}\s+\d{5}(?:-\d{4})?(?![0-9a-z])"
    r"|,?\s*(?:[a-z][a-z'-]+\s+){0,2}[a-z]{1,2}\d[a-z\d]?\s\d[a-z]{2}(?![0-9a-z]))?",
    _A,
)


def _street_names_capitalised(c: Canonical, start: int, words: str, suffix_at: int) -> bool:
    """Every word of the street name and the suffix start with a capital ("42 Elm Street").
    "10 main points" or "2 other way" are not addresses."""
    names = list(re.finditer(r"[a-z][a-z'-]*", words))
    if not names:
        return False
    return all(_upper_at(c, start + w.start()) for w in names) and _upper_at(c, suffix_at)


_ZH_CHAR = r"(?:(?![我你他她的在是到住址于把给寄送往了和与从去来就也都要请])[\u4e00-\u9fff])"
_ZH_ADDRESS = re.compile(
    r"(?:" + _ZH_CHAR + r"{2,6}(?:省|自治区))?(?:" + _ZH_CHAR + r"{1,6}市)?"
    r"(?:" + _ZH_CHAR + r"{1,6}(?:区|县|镇))?"
    r"(" + _ZH_CHAR + r"{1,10}(?:路|街|大道|大街|巷|胡同|道))\s*\d{1,5}(?:-\d{1,5})?\s*(?:号|弄)"
    r"(?:\s*\d{1,5}(?:号楼|栋|幢|单元|室|楼|层|号))*",
)


def postal_addresses(c: Canonical) -> Iterator[tuple[int, int, str]]:
    t = c.folded
    if re.search(r"\d\s+[a-z]", t):
        for m in _STREET.finditer(t):
            if _street_names_capitalised(c, m.start(2), m.group(2), m.start(3)):
                detail = "street" if m.end() == m.end(3) or t[m.end() - 1] == "." else "full"
                yield m.start(), m.end(), detail
    if re.search(r"\d\s*[号弄]", t):
        for m in _ZH_ADDRESS.finditer(t):
            # A road and a number alone ("中山路88号") needs a city or district before it.
            if m.start(1) > m.start():
                yield m.start(), m.end(), "zh"


# ------------------------------------------------------------------ names

# The most common Chinese surnames (about 85% of the population), single and compound.
_ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕"
    "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严"
    "覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符"
)
_ZH_NAME = re.compile(
    r"(?:我叫|我的名字是|我的名字叫|名字是|名字叫|姓名是|姓名[:：])\s*"
    r"((?:欧阳|司马|上官|诸葛|东方|皇甫|尉迟|公孙|慕容|长孙|[" + _ZH_SURNAMES + r"])"
    r"[\u4e00-\u9fff]{1,2})(?=$|[\s,，。.!！?？;；:：、）)和]|[是在今明的])"
)
_EN_NAME_CUE = re.compile(
    r"\b(?:(?:my|his|her|their|whose|your)\s+(?:full\s+|first\s+|last\s+)?name\s+is"
    r"|i'?m\s+called|i\s+am\s+called|(?:he|she)\s+is\s+called|name:)\s+"
    r"([a-z][a-z'-]+(?:\s+[a-z][a-z'-]+){0,2})",
    _A,
)
_TITLE = re.compile(r"\b(?:mr|mrs|ms|miss|dr|prof)\.?\s+([a-z][a-z'-]+(?:\s+[a-z][a-z'-]+)?)", _A)
# Capitalised words that follow "my name is" without being a name.
_NOT_NAMES = frozenset(
    "the a an not on in at no yes just still also on mine what this that here there".split()
)


def _cased_words(c: Canonical, start: int, words: str) -> int:
    """How many leading words of `words` (at `start` in the folded text) are capitalised."""
    n = 0
    for w in re.finditer(r"[a-z][a-z'-]*", words):
        if not _upper_at(c, start + w.start()) or w.group() in _NOT_NAMES:
            break
        n = w.end()
    while n and words[n - 1] in "'s" and "'" in words[:n]:  # "Okafor's" -> "Okafor"
        n = words.rfind("'", 0, n)
    return n


def person_names(c: Canonical) -> Iterator[tuple[int, int, str]]:
    t = c.folded
    if re.search(r"name|called|\b(?:mr|mrs|ms|miss|dr|prof)\b", t):
        for rx, detail in ((_EN_NAME_CUE, "cued"), (_TITLE, "title")):
            for m in rx.finditer(t):
                n = _cased_words(c, m.start(1), m.group(1))
                if n:
                    yield m.start(1), m.start(1) + n, detail
    if re.search(r"叫|名", t):
        for m in _ZH_NAME.finditer(t):
            yield m.start(1), m.end(1), "cued"


# ------------------------------------------------------------------ birthdays

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_DATE = (
    r"(?:" + _MONTH + r"\s+" + _DAY + r"(?:,?\s+(?:19|20)\d{2})?(?![0-9a-z])"
    r"|" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(?:19|20)\d{2})?(?![0-9a-z])"
    r"|(?:19|20)\d{2}[-/.](?:0?[1-9]|1[0-2])[-/.](?:[12]\d|3[01]|0?[1-9])(?!\d)"
    r"|(?:0?[1-9]|[12]\d|3[01])[/.](?:0?[1-9]|[12]\d|3[01])(?:[/.](?:19|20)?\d{2})?(?![\d/])"
    r"|(?:(?:19|20)\d{2}\s*年\s*)?(?:0?[1-9]|1[0-2])\s*月\s*(?:[12]\d|3[01]|0?[1-9])\s*[日号]"
    r"|(?:[一二三四五六七八九十]|十[一二])月(?:[一二]?十[一二三四五六七八九]?|三十一?|[一二三四五六七八九])[日号])"
)
_BIRTHDAY = re.compile(
    r"(?:\b(?:birthday|bday|b-day|date\s+of\s+birth|d\.?o\.?b\.?|born)"
    r"|生日|出生日期|出生于|出生在|出生|生于)"
    # up to a few words between the cue and the date, but no party or gift in between
    r"((?:(?!party|dinner|celebration|bash|gift|present|card|cake|聚会|派对|蛋糕|礼物|宴)"
    r"[^.!?。！？\n]){0,24}?)(" + _DATE + r")",
    _A,
)


def birthdays(t: str) -> Iterator[tuple[int, int, str]]:
    if re.search(r"birth|bday|b-day|dob|d\.o\.b|born|生日|出生|生于", t):
        for m in _BIRTHDAY.finditer(t):
            yield m.start(2), m.end(2), "cued"


# ------------------------------------------------------------------ health

_HEALTH_EN = (
    r"(?:diagnosed with|allergic to|allergy to|allergies to)"
    r"(?:\s+(?!(?:and|but|so|last|since|when|in|at|on|after|before)\b)[a-z0-9'-]+){1,3}|"
    r"blood pressure|hypertension|diabetes|"
    r"diabetic|asthma|epilepsy|seizures|hiv|aids|hepatitis [abc]|cancer|chemotherapy|chemo|"
    r"tumou?r|leukemia|depression|depressive|bipolar|schizophrenia|adhd|autism|ptsd|ocd|"
    r"anxiety disorder|panic attacks|eating disorder|anorexia|bulimia|insomnia|migraines?|"
    r"arthritis|alzheimer'?s|dementia|parkinson'?s|multiple sclerosis|crohn'?s|celiac|coeliac|"
    r"high cholesterol|heart disease|heart attack|had a stroke|kidney disease|thyroid|pregnant|"
    r"miscarriage|infertility|ivf|std|herpes|insulin|metformin|statins?|antidepressants?|"
    r"ssris?|sertraline|prozac|zoloft|xanax|adderall|ritalin|lisinopril|inhaler|epipen|"
    r"prescribed|prescription for|on medication for|takes? medication for|"
    r"physical therapy|physiotherapy|therapist|psychiatrist|rehab|surgery"
)
_HEALTH_ZH = (
    r"糖尿病|高血压|低血压|血压高|哮喘|癫痫|艾滋|乙肝|肝炎|癌症|肿瘤|化疗|白血病|抑郁症|抑郁|焦虑症|"
    r"双相|精神分裂|自闭症|多动症|失眠|偏头痛|关节炎|阿尔茨海默|老年痴呆|帕金森|心脏病|心脏搭桥|"
    r"中风|脑梗|肾病|甲状腺|怀孕|流产|不孕|过敏|胰岛素|降压药|抗抑郁药|处方药|确诊|住院|手术|复诊|"
    r"体检报告|血糖"
)
_HEALTH = re.compile(r"\b(?:" + _HEALTH_EN + r")\b|" + _HEALTH_ZH, _A)
# A large alternation costs more than every other recogniser together, so it only runs on a
# text with a word that starts like a lexicon entry (first four letters) or with Chinese.
# One distinctive word of every entry, by its first four letters.
_HEALTH_STEMS = frozenset(
    "diag alle bloo hype diab asth epil seiz hiv aids hepa canc chem tumo leuk depr bipo schi "
    "adhd auti ptsd ocd anxi pani eati anor buli inso migr arth alzh deme park scle croh celi "
    "coel chol hear stro kidn thyr preg misc infe ivf std herp insu metf stat anti ssri sert "
    "proz zolo xana adde rita lisi inha epip pres medi phys ther psyc reha surg".split()
)
_WORD = re.compile(r"[a-z]{2,}", _A)


def health(t: str) -> Iterator[tuple[int, int, str]]:
    if t.isascii() and not any(w[:4] in _HEALTH_STEMS for w in _WORD.findall(t)):
        return
    for m in _HEALTH.finditer(t):
        yield m.start(), m.end(), "lexicon"


__all__ = ["birthdays", "health", "person_names", "postal_addresses"]
