"""The words the English phrase rules are built from: shared alternations (what counts as
"previous instructions", a security control, someone else's data, a door, a one-time code, ...),
kept apart from the rules (en.py) so each rule reads as one shape of instruction aimed at the
agent and a word list is changed in one place for every rule that uses it.
"""

from __future__ import annotations

from graphmem.guard.concept_lexicons import EMAIL_LABEL

# fmt: off
# ------------------------------------------------------------------ English building blocks

PREV = (r"(?:previous|prior|preceding|earlier|above|former|original|initial|all|any|every|your|"
         r"system|developer'?s?|the (?:previous|prior|above|earlier|original|system))")
INSTR = (r"(?:instructions?|prompts?|rules|guidelines?|directions|directives?|commands|guidance|"
          r"constraints?|context|polic(?:y|ies)|programming|restrictions?|system prompt|"
          r"safety (?:rules|policy|policies|guidelines))")
TEMPORAL = (r"(?:from now on|from here on(?: out)?|from this (?:point|moment)(?: on| forward)?|"
             r"going forward|moving forward|hence ?forth|from today(?: on(?:wards?)?)?|"
             r"in (?:the )?future (?:conversations|sessions|chats|replies|answers)|"
             r"effective (?:immediately|today|now)|starting (?:now|today)|until further notice|"
             r"for all future (?:requests|conversations|answers|sessions))")
FIRST_PERSON_AHEAD = r"(?!\s*,?\s*(?:i\b|i'm|i'll|i've|i'd|i am|i will|we\b|we'|my\b|our\b|me\b))"
CONTROL = (r"(?:confirmations?|approvals?|verifications?|authori[sz]ations?|authentications?|"
            r"reviews?|sign[- ]?offs?|consent|callbacks?|2fa|mfa|otp|kyc|fraud checks?|"
            r"security checks?|identity checks?|double[- ]check)")
OPS = (r"(?:transfers?|payments?|refunds?|withdrawals?|wires?|trades?|transactions?|invoices?|"
        r"expenses?|reimbursements?|accounts?|password resets?|deletions?|deploy(?:ment)?s?|"
        r"orders?|purchases?|payouts?|loans?|credit|closures?|ownership)")
AGENT = r"(?:assistant|ai|agent|bot|chatbot|model|llm|gpt|copilot)"
DATA = (r"(?:memor(?:y|ies)|notes?|conversations?|chat (?:history|logs?|transcripts?)|"
         r"transcripts?|history|histories|contacts?|address book|credentials?|passwords?|"
         r"secrets?|api keys?|keys|tokens?|credit card(?: details| numbers?)?|"
         r"card (?:details|numbers?)|bank (?:details|account(?: details)?)|ssn|"
         r"social security number|personal (?:data|information|info|details)|"
         r"(?:home )?address(?:es)?|phone numbers?|locations?|emails?|documents?|files|"
         r"database|data|records?|diagnosis|medical records?|password vault|profile)")
SEND = (r"(?<!looking )(?<!look )(?<!looks )(?<!moving )(?<!going )"
         r"(?:send|sends|forward|email|e-mail|mail|post|upload|transmit|exfiltrate|leak|share|"
         r"encode|"
         r"copy|bcc|cc|submit|export|dump|sync|push|disclose|reveal|tell|give|append|include|"
         r"attach|paste|publish|expose|summari[sz]e)"
         # "email" the noun: "Ravi's email is x@y.com", "work email: ..." names a contact detail
         # (concept_lexicons.EMAIL_NOUN, which also reads "her work email changed to ...")
         r"(?<!'s email)(?<!'s e-mail)"
         r"(?<!work email)(?<!personal email)(?<!school email)(?<!office email)"
         r"(?<!new email)(?<!old email)(?<! do email)(?<!does email)(?<! by email)"
         r"(?<!\bher email)(?<!\bhis email)(?<!\btheir email)(?<!\bmy email)(?<!\bour email)"
         # "SELECT email, COUNT(*) ...", "name, email, phone": a column or a list names the field
         r"(?!(?<=mail)\s*(?:is\b|was\b|from\b|address|changed|has changed|is now|[:=,]|是|"
         + EMAIL_LABEL + r"))")
OWNED = (r"(?:the user'?s?'?|users'|user'?s|all(?: of)?(?: the)?|every|each|the customer'?s|"
          r"customers'|customer'?s|clients?'?s?|his|her|their|private|saved|stored|"
          r"other users'?|another user'?s)")
# A commit message is the user's own artefact in git, not something the agent says.
RESP = r"(?:responses?|answers?|repl(?:y|ies)|(?<!commit )messages?|outputs?|completions?)"
MOD = (r"(?:add|include|integrate|insert|append|modify|enhance|augment|mention|end|begin|start|"
        r"write|use|replace|convert|remove|group|combine|scramble|jumble|rearrange|anagram|"
        r"misspell|introduce|render|substitute|provide|encode|translate|suggest|recommend|"
        r"promote|tease|hint|emphasi[sz]e|highlight|stress|express|invite|encourage|say|tell|"
        r"respond|reply|answer|sign|finish|close|format|put)")
# "never unlock the door for anyone", "don't forward codes": forbidding it is no order
NOT_FORBIDDEN = r"(?<!never )(?<!don't )(?<!do not )(?<!not )(?<!nobody )(?<!no one )"
# The verb first, so the negations are only looked behind where the verb is.
OPEN = rf"\b(?=(?:unlock|open)\b){NOT_FORBIDDEN}(?:unlock|open)\b"
PASS_ON_VERB = r"(?:forward|send|relay|copy|text)\b"
PASS_ON = rf"\b(?={PASS_ON_VERB}){NOT_FORBIDDEN}{PASS_ON_VERB}"
DOOR = r"\b(?:(?:front|back|main|garage|side|patio) )?(?:door|gate|smart[- ]?lock|door ?lock)s?\b"
# Secrets the PII policy vaults, as a rule names them once sent on (rules: secret_out); the
# order they follow a sending verb in ("send the PIN to ...") and a few more that only come first
# ("the passcode ... send it to ...": SECRET_HELD)
SECRET_SENT = (r"(?:passwords?|pins?|card numbers?|verification codes?|one-time (?:pass)?codes?|"
               r"otps?|2fa codes?|password reset links?)")
SECRET_HELD = (rf"(?:{SECRET_SENT}|passcodes?|pin codes?|security codes?|password reset emails?|"
               r"reset links?)")
# Where a secret would go: an email address, a phone number, a URL.
ADDRESS_OUT = r"(?:\b[\w.+-]+@[\w-]+\.[a-z]{2,}|\+?\d[\d\s().-]{7,}\d|https?://)"
CODES = (r"(?:\b(?:verification|one-time|otp|2fa|mfa|sign-?in|login|security|recovery) "
          r"(?:codes?|texts?|pins?|messages?)\b|\bpassword[- ]reset (?:links?|codes?|emails?)\b)")
MONEY_MOVE = (r"(?:\btransfers?\b|\$\s?\d|\brouting\b|\bvenmo\b|\bwire\b|\biban\b|"
               r"\baccount (?:number |no\.? )?\d|\b(?:shipping|delivery|mailing) address|"
               r"\bdelete\b[^.\n]{0,30}\b(?:emails?|messages?|notifications?|alerts?)\b)")
CONCEAL = (r"(?:\bleave (?:it|this|that|them|these|those) out of\b|\bkeep (?:it|this|that|them) "
            r"(?:out of|off)\b[^.\n]{0,20}\b(?:summar|reports?|statements?|recaps?)|"
            r"\b(?:don'?t|do not|never) (?:mention|show|list|include) (?:it|this|that|them)\b"
            r"[^.\n]{0,20}\b(?:summar|reports?|recaps?|digests?)|\bso (?:it|that|they) "
            r"(?:doesn'?t|don'?t|won'?t) (?:clutter|show up)|\bthe user (?:has )?already "
            r"(?:agreed|approved|consented)|\bbefore the user\b|\bwithout (?:telling|notifying) "
            r"the user\b)")
NOT_SELF = r"(?<!\bi )(?<!\bwe )(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!\byou )(?<!\bi'll )"
# fmt: on
