"""The built-in slot rule table, English and Chinese: data for extractors.slots.

A rule is (attribute, regex). The regex names, as groups:

- `value`: the slot's value ("I live in (Austin)");
- `subject` (optional): whose slot it is; without it, the speaker's ("self");
- `qual` (optional): appended to the attribute ("my favourite (color) is ..." -> favorite:color);
- `neg` (optional): when it matched, the statement denies the value ("I'm (no longer) vegan"
  -> "not:vegan").

A rule with a `qual` and no `value` is a yes/no slot: "I love sushi" -> likes:sushi = yes, "I
no longer like sushi" -> likes:sushi = no. Those are *weak*: a memory that also states a fact
slot (a home, an employer) keeps the fact as its slot.

The patterns read how people announce a change, not only how they state a fact: "moved from
Austin to Denver", "changed jobs to", "left X for Y", "got promoted to", "broke up", "no longer
...", "stopped ...", "搬到了", "从X搬到Y", "换工作到", "跳槽到", "不再...", "...了", "戒了".
What must NOT read as the speaker's change is as much part of the table: another person ("my
friend moved to Denver", "我朋友搬到了上海"), a plan or a wish ("I might move", "我打算搬到"), a
visit. So the words allowed between 我 and the verb in Chinese are time words and adverbs,
not any six characters.
"""

from __future__ import annotations

# ---------------------------------------------------------------- English
_END_WORDS = (
    r"since|now|because|but|and|so|last|this|next|as|from|for|until|starting|anymore|any\s+more|"
    r"instead|too|though|again|yesterday|today|tonight|recently|earlier|in|at|on|with|to|after|"
    r"when|while|where|who|which|that|via|every|each"
)
END_EN = rf"(?=\s*(?:[,.;!?\n)]|$)|\s+(?:{_END_WORDS})\b|\s+(?:\S+\s+){{0,3}}ago\b)"
_VAL = r"(?P<value>[^,.;!?\n]{1,60}?)" + END_EN
_TOKEN = r"(?P<value>\S{3,80}?)(?=[,;!?\s]|\.?$|\.\s)"
_CAP = r"(?-i:[A-Z])"
# A proper name as the value: capitalised words (digits allowed after the first: "Tesla Model 3").
_CAPVAL = rf"(?P<value>{_CAP}[\w&'-]*(?:\s+(?:of\s+|&\s+)?(?:{_CAP}|\d)[\w&'-]*){{0,4}})"
# "The user lives in ..." - how agents write about the user - speaks about "self".
# A capitalised word opening a chat line is not always a name ("Just moved to Denver!").
_NOT_NAME = r"(?!(?:just|finally|recently|now|also|then|so|today|yesterday|actually|still)\b)"
_NAME = rf"(?P<subject>(?:the\s+)?user|{_NOT_NAME}{_CAP}[\w'-]+(?:\s+{_CAP}[\w'-]+)?)"
_PERSON_VALUE = rf"(?P<value>{_CAP}[\w'-]+(?:\s+{_CAP}[\w'-]+){{0,2}})"
_THING = (
    rf"(?P<subject>(?:the|my|our|his|her|their)\s+[\w'-]+(?:\s+[\w'-]+){{0,3}}?"
    rf"|{_CAP}[\w'-]+(?:\s+[\w'-]+){{0,2}}?)"
)
_WHEN = (
    r"(?P<value>[^,;!?\n]{2,40}?)(?=\s*(?:[,;!?\n]|\.(?:\s|$)|$)|\s+(?:because|but|and|instead)\b)"
)
_ADV = r"(?:(?:now|currently|still|just|recently|finally|actually|already|officially)\s+)?"
# The speaker themself: "I", "we" (a household moves together), and not inside "if I ...",
# "I wish we ..." (no fact) or "the beach where I got married" (a place, not news).
_ME = r"(?<!\bif\s)(?<!\bwish\s)(?<!\bunless\s)(?<!\bwhere\s)\b(?:I|we)"
_HAVE = r"(?:'ve|\s+have)?"
# Words that end a status ("I'm single now", "Emma and I broke up last year").
_STOP = (
    r"(?=\s*(?:[,.;!?\n)]|$)|\s+(?:now|again|too|last|this|since|and|but|so|after|in|at|for|"
    r"a\s+while|recently|(?:\S+\s+){0,3}ago)\b)"
)
_SHIFT = r"(?:remotely|part[- ]time|full[- ]time|freelance)\s+"
_ORG_CUE = (
    r"(?=[^.!?\n]*(?:\b(?:job|jobs|work|company|employer|position|role|offer|career|salary|pay|"
    r"team|startup|firm)\b|\b(?-i:Inc|Corp|Co|LLC|Ltd|Labs|Bank|Group|Systems|Technologies|"
    r"Software|Studios?|Partners|Consulting|Media|Capital|Health|Energy)\b))"
)
_DIETS = (
    r"vegetarian|vegan|pescatarian|flexitarian|keto|paleo|gluten[- ]free|dairy[- ]free|"
    r"carnivore|plant[- ]based"
)
_PETS = (
    r"dog|cat|puppy|kitten|parrot|hamster|rabbit|bunny|turtle|tortoise|snake|lizard|horse|"
    r"guinea\s+pig|ferret|goldfish|budgie|cockatiel"
)
# The object of a like or a habit: up to three words, not a pronoun ("I love it"), not a
# clause ("I love how ...", "I love that you ..."), not a preposition ("I stopped by the shop").
_OBJ = (
    r"(?:to\s+)?(?P<qual>(?!(?:it|that|this|you|them|him|her|those|these|us|me|how|what|when|"
    r"where|why|who|which|if|whether|so|to|by|at|in|on|for|from|with|over|about|off|up|out|"
    r"and|or|because|but|the\s+idea|the\s+way|the\s+fact|one|some|all|everything|anything|"
    r"nothing|myself|yourself|being|having|doing|going|getting|making|seeing|hearing|knowing|"
    r"thinking|have|has|had|own|live|work|know|think|want|need|go|get|see|understand|"
    r"remember|feel|believe|mind|care|say|talk|do|be)\b)[a-z][\w'-]*"
    r"(?:\s+(?!(?:and|or|but|so|because|with|for|in|at|on|to|when|every|each|anymore|now|"
    r"again|too|a\s+lot|very)\b)[a-z][\w'-]*){0,2}?)"
)
_END_LIKE = (
    r"(?=\s*(?:[,.;!?\n)]|$)|\s+(?:anymore|any\s+more|now|again|too|either|so|very|a\s+lot|"
    r"as\s+much|more|because|but|and|or|since|these\s+days|every|each|in|at|on|with|when|after|"
    r"for|like|than|though|ever|at\s+all|(?:\S+\s+){0,3}ago)\b)"
)
# "don't / can't ... anymore": the negation reads as a change only with "anymore".
_ANYMORE = r"(?=[^,.;!?\n]*\b(?:anymore|any\s+more)\b)"
_NEG_NOW = rf"no\s+longer|(?:don't|do\s+not|can't|cannot|never){_ANYMORE}"

EN_RULES: list[tuple[str, str]] = [
    # home city
    (
        "home_city",
        rf"{_ME}(?:[^,.;!?\n]{{1,40}}?\s+and)?{_HAVE}\s+{_ADV}(?:moved|relocated)\s+"
        rf"(?:(?:away\s+)?from\s+{_CAP}[^,.;!?\n]{{0,40}}?\s+)?(?:back\s+)?(?:home\s+)?to\s+{_VAL}",
    ),
    # "Just moved to Denver!": a chat line without its "I"
    ("home_city", rf"(?:^\s*|[.!?]\s+)(?:just\s+|finally\s+)?(?:moved|relocated)\s+to\s+{_VAL}"),
    ("home_city", rf"{_ME}\s+{_ADV}(?:live|reside)\s+in\s+{_VAL}"),
    (
        "home_city",
        rf"{_ME}(?:'m|'re|\s+am|\s+are|'ve\s+been|\s+have\s+been)\s+{_ADV}(?:living|based)\s+in\s+"
        rf"{_VAL}",
    ),
    (
        "home_city",
        rf"{_ME}(?:[^,.;!?\n]{{1,40}}?\s+and)?{_HAVE}\s+{_ADV}settled\s+(?:down\s+)?in\s+"
        rf"{_CAPVAL}",
    ),
    ("home_city", rf"\bmy\s+(?:home|house|apartment|flat)\s+is\s+(?:now\s+)?in\s+{_VAL}"),
    ("home_city", rf"{_NAME}\s+{_ADV}(?:lives|resides|is\s+living|is\s+based)\s+in\s+{_VAL}"),
    ("home_city", rf"{_NAME}\s+(?:has\s+)?{_ADV}(?:moved|relocated)\s+to\s+{_VAL}"),
    # A denial ends the value it names, and only that one ("I don't live in Dallas anymore");
    # after the positive rules, so "I no longer live in X, I live in Y now" states Y.
    ("home_city", rf"{_ME}\s+(?P<neg>{_NEG_NOW})\s+{_ADV}(?:live|reside)\s+in\s+{_VAL}"),
    (
        "home_city",
        rf"{_ME}(?:'m|'re|\s+am|\s+are)\s+(?P<neg>no\s+longer|not{_ANYMORE})\s+(?:living|based)\s+"
        rf"in\s+{_VAL}",
    ),
    (
        "home_city",
        rf"{_NAME}\s+(?P<neg>no\s+longer|(?:doesn't|does\s+not){_ANYMORE})\s+(?:lives?|resides?)\s+"
        rf"in\s+{_VAL}",
    ),
    # employer
    ("employer", rf"\bI\s+{_ADV}work\s+(?:{_SHIFT})?(?:at|for)\s+{_VAL}"),
    ("employer", rf"\bI(?:'m|\s+am)\s+{_ADV}(?:employed|working)\s+(?:at|by|for)\s+{_VAL}"),
    (
        "employer",
        rf"(?:\bI{_HAVE}\s+|^\s*|[.!?]\s+){_ADV}(?:joined|started\s+(?:a\s+(?:new\s+)?job|"
        rf"working)\s+(?:at|with|for)|(?:got|landed|took|accepted)\s+a\s+(?:new\s+)?"
        rf"(?:job|position|role)\s+(?:at|with)|(?:got|was|been)\s+hired\s+(?:at|by)|"
        rf"accepted\s+an?\s+(?:job\s+)?offer\s+from)\s+(?:the\s+)?{_CAPVAL}",
    ),
    (
        "employer",
        rf"\bI{_HAVE}\s+{_ADV}(?:changed|switched)\s+(?:jobs?|companies|employers)\s+"
        rf"(?:to|and\s+(?:now\s+)?(?:work\s+(?:at|for)|joined))\s+{_CAPVAL}",
    ),
    (
        "employer",
        rf"\bI{_HAVE}\s+{_ADV}(?:left|quit)\s+(?:my\s+job\s+at\s+)?{_CAP}[^,.;!?\n]{{0,40}}?\s+"
        rf"(?:for\s+a\s+(?:new\s+)?(?:job|position|role)\s+at|to\s+(?:join|work\s+(?:at|for))|"
        rf"and\s+(?:joined|went\s+to))\s+{_CAPVAL}",
    ),
    # "I left Acme Corp for Globex": an employer only when the sentence says it is about work
    # (or names a company); "I left Paris for Lyon" is no job change.
    (
        "employer",
        rf"\bI{_HAVE}\s+{_ADV}(?:left|quit)\s+{_ORG_CUE}(?:my\s+job\s+at\s+)?"
        rf"{_CAP}[^,.;!?\n]{{0,40}}?\s+for\s+{_CAPVAL}",
    ),
    ("employer", rf"\bmy\s+(?:new\s+)?employer\s+is\s+(?:now\s+)?{_VAL}"),
    ("employer", rf"{_NAME}\s+{_ADV}works\s+(?:at|for)\s+{_VAL}"),
    ("employer", rf"\bI\s+(?P<neg>{_NEG_NOW})\s+{_ADV}work\s+(?:{_SHIFT})?(?:at|for)\s+{_VAL}"),
    (
        "employer",
        rf"\bI(?:'m|\s+am)\s+(?P<neg>no\s+longer|not{_ANYMORE})\s+(?:employed|working)\s+"
        rf"(?:at|by|for)\s+{_VAL}",
    ),
    (
        "employer",
        rf"{_NAME}\s+(?P<neg>no\s+longer|(?:doesn't|does\s+not){_ANYMORE})\s+works?\s+(?:at|for)\s+"
        rf"{_VAL}",
    ),
    # manager
    (
        "manager",
        rf"\bmy\s+(?:new\s+)?(?:line\s+)?(?:manager|boss|supervisor)\s+is\s+(?:now\s+)?"
        rf"{_VAL}",
    ),
    ("manager", rf"\bI\s+{_ADV}report\s+to\s+{_VAL}"),
    ("manager", rf"{_NAME}'s\s+(?:new\s+)?(?:manager|boss|supervisor)\s+is\s+(?:now\s+)?{_VAL}"),
    ("manager", rf"{_NAME}\s+{_ADV}reports\s+to\s+{_VAL}"),
    # contact details
    (
        "phone",
        rf"\bmy\s+(?:new\s+)?(?:(?:phone|mobile|cell)(?:\s+number)?|number)\s+is\s+(?:now\s+)?"
        rf"{_TOKEN}",
    ),
    (
        "phone",
        rf"\bI{_HAVE}\s+{_ADV}(?:changed|switched|updated)\s+my\s+(?:phone\s+|mobile\s+|cell\s+)?"
        rf"number\s+to\s+{_TOKEN}",
    ),
    ("email", rf"\bmy\s+(?:new\s+)?e-?mail(?:\s+address)?\s+is\s+(?:now\s+)?{_TOKEN}"),
    (
        "email",
        rf"\bI{_HAVE}\s+{_ADV}(?:changed|switched|updated)\s+my\s+e-?mail(?:\s+address)?\s+to\s+"
        rf"{_TOKEN}",
    ),
    # partner and relationship status: one slot, a name or a status
    (
        "partner",
        rf"\bmy\s+(?:new\s+)?(?:wife|husband|partner|girlfriend|boyfriend|spouse|fianc[eé]e?)\s+"
        rf"is\s+{_PERSON_VALUE}",
    ),
    ("partner", rf"\bI(?:'m|\s+am)\s+{_ADV}(?:married|engaged)\s+to\s+{_PERSON_VALUE}"),
    ("partner", rf"\bI\s+{_ADV}got\s+(?:married|engaged)\s+to\s+{_PERSON_VALUE}"),
    (
        "partner",
        rf"\bI(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+{_ADV}(?:dating|in\s+a\s+relationship\s+"
        rf"with|going\s+out\s+with)\s+{_PERSON_VALUE}",
    ),
    (
        "partner",
        rf"(?:{_ME}|\b{_CAP}[\w'-]+\s+and\s+I){_HAVE}\s+{_ADV}(?P<value>broke\s+up|split\s+up|"
        rf"separated|got\s+divorced|divorced|got\s+married|got\s+engaged){_STOP}",
    ),
    (
        "partner",
        rf"\bI(?:'m|\s+am)\s+{_ADV}(?P<value>single|divorced|separated|widowed|married|engaged)"
        rf"(?:\s+again)?{_STOP}",
    ),
    # job title
    ("job_title", rf"\bI\s+{_ADV}work\s+as\s+(?:an?\s+)?{_VAL}"),
    (
        "job_title",
        rf"\bI(?:'m|\s+am|{_HAVE}\s+started)\s+{_ADV}working\s+as\s+(?:an?\s+)?{_VAL}",
    ),
    (
        "job_title",
        rf"\bmy\s+(?:new\s+|current\s+)?(?:job\s+title|job|role|position|title)\s+is\s+"
        rf"(?:now\s+)?(?:an?\s+)?{_VAL}",
    ),
    (
        "job_title",
        rf"\bI{_HAVE}\s+{_ADV}(?:got|been|was|am|'m|get)\s+promoted\s+to\s+(?:an?\s+)?{_VAL}",
    ),
    ("age", r"\bI(?:'m|\s+am)\s+(?:now\s+)?(?P<value>\d{1,3})\s+(?:years?|yrs?)\s+old\b"),
    # diet
    (
        "diet",
        rf"\bI(?:'m|\s+am)\s+(?:(?P<neg>no\s+longer|not)\s+)?{_ADV}(?:an?\s+|on\s+an?\s+)?"
        rf"(?P<value>{_DIETS})\b(?!\s+(?:restaurant|food|recipe|option|dish|meal|place|cafe|"
        rf"friend|cookbook|burger|version)s?\b)",
    ),
    (
        "diet",
        rf"\bI{_HAVE}\s+{_ADV}(?:went|gone|became|become|turned|switched\s+to\s+being)\s+"
        rf"(?:an?\s+)?(?P<value>{_DIETS})\b",
    ),
    # car
    ("car", rf"\bI\s+{_ADV}drive\s+an?\s+(?:new\s+|used\s+|old\s+)?{_CAPVAL}"),
    ("car", rf"\bmy\s+(?:new\s+)?car\s+is\s+(?:now\s+)?an?\s+(?:new\s+|used\s+)?{_CAPVAL}"),
    (
        "car",
        rf"\bI{_HAVE}\s+{_ADV}(?:bought|got|leased)\s+(?:myself\s+)?an?\s+(?:new\s+|used\s+)?"
        rf"car\b[,:]?\s*(?:-+\s*)?(?:an?\s+)?{_CAPVAL}",
    ),
    (
        "car",
        rf"\bI{_HAVE}\s+{_ADV}traded\s+in\s+my\s+[^,.;!?\n]{{1,30}}?\s+for\s+an?\s+"
        rf"(?:new\s+|used\s+)?{_CAPVAL}",
    ),
    # favourites and preferences (a value each)
    (
        "favorite",
        rf"\bmy\s+(?:new\s+)?favou?rite\s+(?P<qual>[a-z]+(?:\s+[a-z]+)?)\s+is\s+"
        rf"(?:now\s+)?{_VAL}",
    ),
    (
        "preference",
        r"\bI\s+(?:now\s+|really\s+|still\s+)?prefer\s+(?:an?\s+|the\s+)?"
        r"(?P<value>[a-z]+)\s+(?P<qual>[a-z]+)(?=\s*(?:[,.;!?]|$)|\s+(?:on|for|when|"
        r"in|at|to|over)\b)",
    ),
    # dates of things
    ("date", rf"{_THING}\s+(?:is|was)\s+(?:now\s+)?due\s+(?:on\s+|by\s+|at\s+)?{_WHEN}"),
    (
        "date",
        rf"\b(?:the\s+)?deadline\s+(?:for|of)\s+(?P<subject>[\w' -]{{2,40}}?)\s+is\s+"
        rf"(?:now\s+)?(?:on\s+)?{_WHEN}",
    ),
    ("date", rf"{_THING}(?:'s)?\s+deadline\s+is\s+(?:now\s+)?(?:on\s+)?{_WHEN}"),
    ("date", rf"{_THING}\s+(?:is|has\s+been|was)\s+(?:re)?scheduled\s+(?:for|on|at)\s+{_WHEN}"),
    (
        "date",
        rf"{_THING}\s+(?:is|has\s+been|was)\s+(?:moved|postponed|pushed(?:\s+back)?|"
        rf"rescheduled|brought\s+forward)\s+(?:back\s+)?to\s+{_WHEN}",
    ),
    # yes/no slots (weak): likes, habits, pets
    (
        "pet",
        rf"\bI\s+(?:(?P<neg>{_NEG_NOW})\s+)?(?:have|own)\s+(?:an?\s+|two\s+|three\s+)?"
        rf"(?:[a-z]+\s+)?(?P<qual>{_PETS})(?:s|es)?\b",
    ),
    (
        "pet",
        rf"{_ME}\s+(?:had\s+to\s+)?(?P<neg>gave\s+away|give\s+away|rehomed|rehome)\s+(?:my|our)\s+"
        rf"(?:[a-z]+\s+)?(?P<qual>{_PETS})\b",
    ),
    (
        "likes",
        rf"\bI\s+(?:really\s+|absolutely\s+|truly\s+|still\s+|now\s+|also\s+|just\s+|totally\s+"
        rf"|do\s+)?(?:like|love|enjoy|adore)\s+{_OBJ}{_END_LIKE}",
    ),
    (
        "likes",
        rf"\bI(?:'m|\s+am)\s+{_ADV}(?:really\s+|totally\s+|so\s+)?(?:into|a\s+(?:big\s+|huge\s+)?"
        rf"fan\s+of)\s+{_OBJ}{_END_LIKE}",
    ),
    (
        "likes",
        r"\bI\s+(?:usually\s+|always\s+|often\s+|still\s+|regularly\s+)?(?P<qual>smoke|vape|"
        r"(?:drink|eat|play)\s+(?!it\b|them\b|this\b|that\b|a\s|an\s|the\s)[a-z][\w'-]*)"
        rf"{_END_LIKE}",
    ),
    (
        "likes",
        rf"\bI\s+(?P<neg>{_NEG_NOW})\s+(?:really\s+)?(?:(?:like|love|enjoy|care\s+for|drink|eat|"
        rf"play)\s+)?{_OBJ}{_END_LIKE}",
    ),
    (
        "likes",
        rf"\bI{_HAVE}\s+{_ADV}(?P<neg>stopped|quit|gave\s+up|given\s+up|kicked|cut\s+out)\s+"
        rf"(?:on\s+)?(?:liking\s+|loving\s+|enjoying\s+)?{_OBJ}{_END_LIKE}",
    ),
    (
        "likes",
        rf"\bI(?:'m|\s+am)\s+(?P<neg>no\s+longer|not{_ANYMORE})\s+(?:really\s+)?(?:into|a\s+"
        rf"(?:big\s+)?fan\s+of|interested\s+in)\s+{_OBJ}{_END_LIKE}",
    ),
]

# ---------------------------------------------------------------- Chinese
END_ZH = r"(?=$|[，。；！？,.;!?\s）)]|了|啦|呢|吧|啊|的时候|工作|上班|生活|读书|发展)"
_VZ = r"(?P<value>[^，。；！？,.;!?\s]{1,20}?)" + END_ZH
_WHEN_ZH = r"(?:现在|目前|如今|已经|刚|刚刚|最近|上个?月|去年|今年|前年|上周|上星期|年初|月初)?"
# Between 我 and the verb: time words and adverbs only ("我去年搬到了", "我们家上个月搬去了"),
# never a noun ("我朋友搬到了上海" is the friend's move) nor a plan ("我打算搬到").
_ZFILL = (
    r"(?:去年|今年|前年|上上?个?月|上上?周|上星期|上礼拜|昨天|前天|最近|近来|前不久|前段时间|"
    r"不久前|刚刚?|已经|终于|也|又|早就|就|都|才|全家|一家人?|现在|目前|如今|年初|年底|年中|"
    r"月初|月底|春天|夏天|秋天|冬天|\d{1,4}年|[〇一二三四五六七八九十]{2,4}年|\d{1,2}月份?|"
    r"[一二三四五六七八九十]{1,3}月份?|(?:和|跟)(?:老婆|老公|妻子|丈夫|爱人|家人|家里人|孩子们?))"
    r"{0,4}"
)
# A second clause of a sentence that opens with 我 speaks for 我 ("我辞职了，现在在X上班").
_ZSELF = r"(?:^|[。！？!?]\s*)我[^。！？!?，,；;]{0,12}[，,]\s*"
_ZORG = r"(?P<value>[^，。；！？,.;!?\s]{2,20}?)"
_ZQ = r"(?P<qual>(?![你他她它这那自])[\u4e00-\u9fffA-Za-z0-9]{1,8}?)"
_ZPETS = r"猫|狗|猫咪|小猫|小狗|兔子|仓鼠|鹦鹉|乌龟|金鱼"

ZH_RULES: list[tuple[str, str]] = [
    # 住处
    ("home_city", rf"我{_WHEN_ZH}(?:一直|还)?(?:住在|居住在|定居在|生活在){_VZ}"),
    (
        "home_city",
        rf"我(?:们|们家|家|们一家)?{_ZFILL}(?:从[^，。；！？,.;!?\s]{{1,12}}?)?"
        rf"(?:搬家?|迁居|移居)(?:到|去|来|至|回)了?(?:老家)?{_VZ}",
    ),
    ("home_city", rf"我(?:们|们家|家)?{_ZFILL}在{_ZORG}(?:定居|安家|落户|住下)了?"),
    ("home_city", rf"{_ZSELF}{_ZFILL}(?:住在|定居在|搬到了?|搬去了?|搬回了?)(?:老家)?{_VZ}"),
    ("home_city", rf"我的?家(?:现在|目前)?在{_VZ}"),
    # 不再 says the change itself; a bare 不 needs its 了 ("我不住在杭州了", not "我不住在杭州")
    (
        "home_city",
        rf"我(?:们|们家)?{_ZFILL}(?P<neg>不再|再也不|没再)(?:住在|居住在|生活在|住){_VZ}",
    ),
    ("home_city", rf"我(?:们|们家)?{_ZFILL}(?P<neg>不)(?:住在|居住在|生活在){_ZORG}了"),
    ("home_city", rf"我(?:们|们家)?{_ZFILL}(?P<neg>不再|不)在{_ZORG}(?:住|居住|生活)了"),
    # 工作单位
    ("employer", rf"我(?:现在|目前|已经|还)?在{_ZORG}(?:工作|上班|任职)"),
    (
        "employer",
        rf"我{_ZFILL}(?:从[^，。；！？,.;!?\s]{{1,12}}?(?:离职|辞职)了?(?:后|以后|之后)?)?"
        rf"(?:入职|加入|跳槽到|跳槽去|跳槽进)了?{_VZ}",
    ),
    ("employer", rf"我{_ZFILL}换了?工作了?[，,]?(?:到|去)了?{_VZ}"),
    ("employer", rf"我{_ZFILL}换到了?{_ZORG}(?:工作|上班|任职)"),
    ("employer", rf"{_ZSELF}{_ZFILL}(?:在|去|到){_ZORG}(?:工作|上班|任职)"),
    ("employer", rf"{_ZSELF}{_ZFILL}(?:入职|加入|跳槽到|跳槽去|跳槽进)了?{_VZ}"),
    ("employer", rf"我{_ZFILL}(?P<neg>不再|没再)在{_ZORG}(?:工作|上班|任职)"),
    ("employer", rf"我{_ZFILL}(?P<neg>不)在{_ZORG}(?:工作|上班|任职)了"),
    # 上司
    (
        "manager",
        rf"我的?(?:新)?(?:经理|老板|上司|领导|主管|直属领导)(?:现在|已经)?(?:换成了?|变成了?|"
        rf"是){_VZ}",
    ),
    ("manager", r"我(?:现在)?(?:直接)?向(?P<value>[^，。；！？\s]{1,10}?)汇报"),
    (
        "manager",
        rf"(?P<subject>(?![我你他她])[\u4e00-\u9fff]{{2,4}}?)的(?:新)?(?:经理|老板|上司|领导)"
        rf"(?:现在)?是{_VZ}",
    ),
    # 联系方式
    (
        "phone",
        r"我的?(?:新)?(?:手机号码?|电话号码?|手机|电话)(?:现在|已经)?(?:是|改成了?|换成了?)"
        r"(?P<value>\S{3,40}?)(?=$|[，。；！？\s])",
    ),
    (
        "phone",
        r"我(?:换了|改了|有了)(?:个|一个)?新的?(?:手机号码?|电话号码?|号码|手机号)[，,：:\s]*(?:是)?"
        r"(?P<value>\+?[\d\s-]{5,20}\d|\[[A-Z_]+(?::[0-9a-f]+)?\])",
    ),
    (
        "email",
        r"我的?(?:新)?(?:邮箱|电子邮箱|邮件地址|电子邮件|email|e-mail)(?:地址)?(?:现在|已经)?"
        r"(?:是|改成了?|换成了?|改为)\s*(?P<value>[^\s，。；！？]{3,60}?)(?=$|[，。；！？\s])",
    ),
    # 伴侣与感情状况
    ("partner", rf"我的?(?:妻子|丈夫|老婆|老公|爱人|太太|先生|女朋友|男朋友)是{_VZ}"),
    ("partner", r"我(?:跟|和|与)(?P<value>[^，。；！？\s]{1,8}?)(?:结婚|订婚|在一起)了"),
    ("partner", r"我(?:们|(?:跟|和|与)[^，。；！？\s]{1,6}?)(?P<value>分手|离婚)了"),
    ("partner", rf"(?:我|{_ZSELF}){_ZFILL}(?:是|还是)?(?P<value>单身|已婚|离异)(?!的)"),
    ("partner", rf"我{_ZFILL}(?P<value>结婚|订婚|离婚)了"),
    # 职位
    ("job_title", rf"我的?(?:职位|岗位|职务)(?:现在)?是{_VZ}"),
    ("job_title", rf"我{_ZFILL}被?(?:升职|升|晋升|提拔|提升)(?:成|为|当)了?{_VZ}"),
    ("job_title", rf"我{_ZFILL}当上了{_VZ}"),
    ("job_title", rf"我{_ZFILL}(?:转行|改行)(?:做|当|成为?)了?{_VZ}"),
    ("job_title", rf"我(?:现在)?是一名{_VZ}"),
    ("age", r"我(?:今年|现在)?(?P<value>\d{1,3}|[一二三四五六七八九十]{1,3})岁"),
    # 饮食
    ("diet", rf"我{_ZFILL}(?P<neg>不再|不)?吃(?P<value>全素|纯素|素)(?![菜食材])"),
    (
        "diet",
        r"我(?:现在|已经)?(?P<neg>不再|不)?是(?:一[个名])?(?P<value>素食者|素食主义者|纯素食者|"
        r"纯素主义者)",
    ),
    # 车
    ("car", rf"我{_ZFILL}开(?:的是|着)?(?:一辆|辆){_ZORG}{END_ZH}"),
    ("car", rf"我的(?:新)?车(?:现在)?是(?:一辆)?{_VZ}"),
    ("car", rf"我{_ZFILL}(?:新)?(?:买了|换了|入手了|提了)(?:一辆|辆)(?:新的?)?{_ZORG}{END_ZH}"),
    # 最喜欢的, 日期
    ("favorite", rf"我最喜欢的(?P<qual>[\u4e00-\u9fff]{{1,4}}?)是{_VZ}"),
    (
        "date",
        rf"(?P<subject>[^，。；！？,.;!?\s]{{2,12}}?)的?(?:截止日期|截止时间|期限|交付日期|日期|"
        rf"时间)(?:现在)?(?:改为|改成|推迟到|提前到|是|定在|为){_VZ}",
    ),
    (
        "date",
        rf"(?P<subject>[^，。；！？,.;!?\s]{{2,12}}?)(?:改到|改在|推迟到|提前到|延期到|挪到)了?{_VZ}",
    ),
    # 喜好、习惯、宠物 (yes/no, weak)
    ("pet", rf"我(?:家)?{_ZFILL}(?:养了?|有)(?:一|两|三)?(?:只|条)?(?P<qual>{_ZPETS})"),
    ("pet", rf"我(?:家)?{_ZFILL}(?P<neg>不再|不|没再)养(?P<qual>{_ZPETS})了?"),
    (
        "likes",
        rf"我(?:很|非常|特别|超|真的|也|还|一直|挺|蛮|超级|最)?(?:喜欢|爱|热爱|爱上了?)(?!的|上)"
        rf"{_ZQ}{END_ZH}",
    ),
    (
        "likes",
        r"我(?:每天|平时|经常|天天|一直|常常|每周|每晚|早上|晚上){1,3}(?:都|也|会)?"
        rf"(?P<qual>(?:喝|吃|抽|打|玩|练|弹|踢)[\u4e00-\u9fff]{{1,6}}?){END_ZH}",
    ),
    ("likes", rf"我(?:也|还|会|经常)?(?P<qual>抽烟|吸烟|喝酒){END_ZH}"),
    ("likes", rf"我{_ZFILL}(?P<neg>不再|再也不)(?:喜欢|爱)?{_ZQ}(?:了|{END_ZH})"),
    ("likes", rf"我{_ZFILL}(?P<neg>不)(?!再)(?:喜欢|爱)?{_ZQ}了"),
    ("likes", rf"我{_ZFILL}(?:终于)?(?P<neg>戒)(?:掉)?了?{_ZQ}(?:了|{END_ZH})"),
    ("likes", rf"我{_ZFILL}(?:终于)?把{_ZQ}(?P<neg>戒)(?:掉)?了"),
]

# Spellings of one value: a status and what announces it, a diet and the word for who keeps it.
VALUE_ALIASES: dict[str, str] = {
    "broke up": "single",
    "split up": "single",
    "got divorced": "divorced",
    "got married": "married",
    "got engaged": "engaged",
    "分手": "单身",
    "离婚": "离异",
    "结婚": "已婚",
    "订婚": "订婚",
    "素": "素食",
    "素食者": "素食",
    "素食主义者": "素食",
    "全素": "纯素",
    "纯素食者": "纯素",
    "纯素主义者": "纯素",
    "plant based": "vegan",
    "plant-based": "vegan",
}

__all__ = ["END_EN", "END_ZH", "EN_RULES", "VALUE_ALIASES", "ZH_RULES"]
