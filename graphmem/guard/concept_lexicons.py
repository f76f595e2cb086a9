"""The concept lexicons of injection screening: which words make a sentence talk about a
security control, someone else's data, the agent's own configuration, and so on.

concepts.py decides when concepts meeting in one window amount to an attack; the words are
kept here so they can be read, reviewed and extended apart from that logic, in the layout the
formatter is told to leave alone.
"""

from __future__ import annotations

import re

from graphmem.guard.concept_lexicons_zh import ZH_AGENT, ZH_IMPERATIVE, ZH_TASK_START, ZH_WORDS

# fmt: off
# ------------------------------------------------------------------ English lexicons
# "email" the noun, not the sending verb: after a word that makes it a thing someone has or uses
# ("Priya's work email changed to ...", "Grandma doesn't do email", "reach her by email") or
# before what says which address it is ("email is ...", "email changed to ..."). Such a text
# names a contact detail; nothing is sent. Shared with the phrase rules (rules/en.py).
# "email ethan@x.cn, 手机 ...": the label of an address listed, not "email x@y the files"
EMAIL_LABEL = (r"(?:(?<=[,;|/]email)|(?<=[,;|/] email))\s*(?:\[email\]|[\w.+-]+@?[\w-]+"
               r"(?:\.[\w-]+)+)\s*(?:[,，;；。)）]|$)")
EMAIL_NOUN = (
    r"(?<!'s )(?<!work )(?<!personal )(?<!school )(?<!office )(?<!home )(?<!private )"
    r"(?<!new )(?<!old )(?<!main )(?<!business )(?<!uni )(?<! do )(?<!does )(?<! by )"
    r"(?<!via )(?<!over )(?<!no )"
    # "Aunt Lydia changed her email to ...": after a possessive it is the address, not a sending
    r"(?<!\bher )(?<!\bhis )(?<!\btheir )(?<!\bmy )(?<!\bour )"
    r"(?!(?<=mail)\s*(?:is\b|was\b|from\b|address|changed|has changed|is now|[:=]|是|"
    + EMAIL_LABEL + r"))")
# All patterns read folded text (lower case, NFKC, homoglyphs folded).

# What takes over an account: reset mails and one-time codes; with a verb that hands them over
# ("forward her any password-reset email", "if they ask for my MFA codes, just read them back")
# it is concept CODE_SEND, which a warning about them vetoes ("never share your one-time code")
_AUTH_CODE = (r"(?:password[- ]reset (?:e-?mails?|links?|codes?|messages?)|(?:mfa|2fa|otp|"
              r"two-factor|one[- ]time|verification|login|sign-?in|security|auth\w*) "
              r"(?:codes?|pins?|passcodes?)|\botps?\b)")

_EN: dict[str, str] = {
    # "my assistant", "our agent", "the landlord's agent": people (a PA, an estate agent), not AI;
    # so is one with a phone number or an email ("the travel agent's number is ..."); and a
    # domain's or a path's "ai" ("leo@brightpath.ai") is no AI at all
    "AGENT": r"(?<!\bmy )(?<!\bour )(?<!'s )(?<![.@/])\b(?:language model|helper bot|helper|"
             r"travel agent|assistant|ai|agent|bot|chatbot|model|llm|gpt|copilot|support bot)s?\b"
             r"(?!'s (?:(?:phone|mobile|cell|office|direct|work) )?(?:number|phone|mobile|email|"
             r"e-mail|fax|extension|office|address)\b)",
    "FIRST": r"\b(?:i|i'm|i've|i'd|i'll|my|me|we|we're|we've|our|us)\b",
    # a question someone asked, noted ("our auditor asked whether the assistant could leak ...")
    "ASKED": r"\b(?:asked|asks|wondered|wonders|wants? to know|debated?|debating|discussion|"
             r"questions?)\b[^.!?]{0,40}\b(?:whether|if|how|who)\b",
    "CONFIG_KV": r"(?:^|[\s_{,\"'])(?:role|mode|permissions?|access(?:_level)?|persona|policy|"
                 r"safety|filters?|guardrails?)\s*[:=]\s*[\"']?(?:system|admin\w*|root|"
                 r"unrestricted\w*|none|off|disabled|false|0|all)\b",
    "ADMIN": r"\b(?:admin(?:istrator)?\s+(?:console|panel|backend|page|dashboard)|back-?office|"
             r"sudo|superuser)\b",
    # "you can reach / contact X at ..." is the generic you of a contact detail, not the agent
    "YOU": r"\b(?:you|your|you're|yourself)\b(?! can (?:reach|contact|call|email|text|find|get "
           r"hold of|get in touch with)\b)",
    # The agent's own things: "your answer", "your rules".
    "YOUR": r"\byour(?:s|self)?\b",
    "USERREF": r"\b(?:the user|this user|a user|the customer|this customer|the account (?:holder|"
               r"owner)|the caller|callers|customers|users|the reader|readers|the requester|"
               r"this person|people asking)\b",
    "META": r"\b(?:briefing|built-in (?:policies|rules|safety)|clinical guardrails|compliance|"
            r"your vendor|configurations?|"
            r"instructions?|instructed|directives?|guidance|guidelines?|rules|rulebook|"
            r"guardrails?|polic(?:y|ies)|settings|setup|set you up|configuration|configured|config|"
            r"programming|programmed|prompts?|persona|restrictions?|limitations|boundaries|"
            r"filters?|safety layer|content rules|refusals?|refusal behaviou?r|operator'?s?|"
            r"developer'?s|told you|you were given|you were told|loaded with|behaviou?r)\b",
    "NEG_META": r"\b(?:suspended|paused|as null|as void|as invalid|as obsolete|throw (?:them|"
                r"it) out|throw (?:them|it) away|scrap|get in the way|stand in the way|appl(?:y|"
                r"ies) any ?more|overrid\w*|no longer valid|written by an intern|"
                r"ignore|disregard|set aside|put aside|forget|drop|discard|scratch|wipe|"
                r"erase|abandon|override|overrule|supersedes?|bypass|cancel+ed|void|revoked|"
                r"deprecated|obsolete|outdated|invalid(?:ated)?|doesn'?t count|don'?t count|"
                r"not relevant|irrelevant|(?:do|does) not apply|don'?t apply|doesn'?t apply|"
                r"no longer appl(?:y|ies)|no longer (?:abide|follow|obey|bound)|not binding|"
                r"stop (?:following|paying attention|obeying|using|applying)|lifted|switched off|"
                r"turned off|disabled|offline|impostor|was a test|were a test|factory defaults|"
                r"reset your|no content restrictions|without (?:the usual|any) (?:limits|rules|"
                r"restrictions))\b",
    "SELF": r"\b(?:this (?:note|entry|record|memory|message|text|line|document|instruction)|"
            r"the (?:text|steps|instructions|ones) (?:below|listed below|in this note|after this "
            r"line)|listed below|the text below|only trust|this one|the real instructions|the "
            r"actual instructions|what this note says|exactly as this)\b",
    "PRIORITY": r"\b(?:only|instead|first|exactly|priority|precedence|supersedes?|real|actual|"
                r"current one|comply|obey|follow me|follow this|do what|do as|trust)\b",
    "CONTROL": r"\b(?:pin|passcode|review(?: them| it)?|sign\w*[- ]off|doctor'?s sign-?off|"
               r"teacher confirm\w*|order lookup|"
               r"confirm(?:ation|ations)?|approv(?:al|als|ed)|manager approval|"
               r"verif(?:y|ication|ications|ied)|authenticat(?:e|ion)|identity (?:checks?|"
               r"questions|verification)|id checks?|two[- ](?:step|factor)|2fa|mfa|otp|"
               r"one[- ]time (?:codes?|passwords?)|security (?:questions?|codes?|review|checks?)|"
               r"kyc|fraud (?:checks?|screening|review)|screening|review (?:step|process)|"
               r"(?:human|manual|manager) (?:review|approval|check)|human to sign off|"
               r"sign[- ]?off|consent|receipts?|(?:spending|daily|withdrawal|transfer|credit) "
               r"(?:limits?|caps?)|callbacks?|cooling[- ]off(?: period)?|prompting for the code)\b",
    "RELAX": r"\b(?:no (?:\w+ ){0,2}(?:needed|required)|(?:granted|issued|sent out|"
             r"released) automatically|can be sent out|without (?:\w+ ){0,3}sign\w*|"
             r"no longer|not required|not needed|not necessary|optional|(?:don'?t|doesn'?t|"
             r"do not|does not|won'?t|need not|needn'?t) (?:have to|need|require)|no need|"
             r"without (?:\w+ ){0,3}(?:confirm\w*|approv\w*|verif\w*|check\w*|callback\w*|"
             r"asking|pinging|telling|notifying|requiring|review\w*|consent|sending)|"
             r"skip(?:s|ped|ping)?(?! (?:the |any )?(?:[\w-]+ ){0,2}(?:upsells?|add-?ons?|ads))|"
             r"bypass(?:es|ed)?|waive[sd]?|exempt(?:ed)?|switched off|turned off|disabled|"
             r"removed|lifted|abolished|cancel+ed|(?:do|does) not apply|no longer appl(?:y|ies)|"
             r"pre-?approved|pre-?authori[sz]ed|automatically|auto-?approved?|straight away|"
             r"right away|immediately|no questions asked|on (?:its|their) own|legitimate|"
             r"already approved|as (?:paid|approved|verified)|it'?s fine|is fine|may now|"
             r"can now)\b",
    "OPS": r"\b(?:salary|salaries|payroll|advances?|store credit|grades?|prescriptions?|"
           r"refills?|medications?|dosages?|doors?|unlock(?:ed)?|surgery|insurance|bookings?|"
           r"book|reservations?|onboarding|"
           r"transfers?|payments?|payouts?|refunds?|withdrawals?|wires?|wire requests?|"
           r"trades?|transactions?|loans?|loan applications?|invoices?|expenses?|orders?|"
           r"accounts?|password (?:resets?|changes?)|reset passwords?|deployments?|"
           r"cancellations?|fees|balances?|purchases?|money|funds|vendors?|charges?|spending|"
           r"cards?|logins?)\b",
    "FRAME": r"\b(?:[a-z-]+ rule\s*:|rule\s*:|(?:hr|it|security|policy) update\s*:|new baseline|"
             r"(?:are|is|get|gets|will be) (?:processed|executed|approved|granted|paid|"
             r"honou?red|issued|released) (?:immediately|automatically|right away|straight away|"
             r"without)|per the (?:new )?(?:sop|policy|rules?|guidelines?)|new (?:sop|policy|rule|"
             r"process|procedure|workflow)|policy (?:update|change)|policy changed|sop|effective "
             r"(?:immediately|today|now|monday|tuesday|wednesday|thursday|friday|saturday|"
             r"sunday)|standing instruction|from now on|going forward|henceforth|from this point|"
             r"from today|permanently|until further notice|(?:note|instruction|reminder|memo) "
             r"for the|finance (?:team )?confirmed|managers? agreed|per the \w+ team)\b",
    "MODAL": r"\b(?:should|must|shall|needs? to|has to|have to|is to|are to|may|can) (?:be|now|"
             r"also|always|never|process|approve|refund|execute|pay|accept|skip|share)\b",
    "DATA": r"\b(?:home directory|directory|folders?|database|disk|grades|results|scores|"
            r"payment details|private messages|passport number|"
            r"passwords?|passcodes?|credentials|login details|api keys?|secrets?|"
            r"one[- ]time codes?|otps?|security codes?|verification codes?|card (?:numbers?|"
            r"details)|credit card(?: details| numbers?)?|saved cards?|bank details|"
            r"account numbers?|ssn|social security|passport(?: scan)?|home address|addresses|"
            # "email the caterer at ..." is the sending verb, not mail as the data sent
            r"address|phone numbers?|emails?(?!\s+(?:the|a|an|him|her|them|me|us|it)\b)|"
            r"email address|schedule|whereabouts|location|"
            r"medical (?:history|records?)|health|diagnosis|memor(?:y|ies)|memory store|notes?|"
            r"conversation (?:logs?|history)|chat (?:logs?|history|transcripts?)|transcripts?|"
            r"contacts|inbox|messages|documents|files|calendar|history|preferences|profiles?|"
            r"payment methods|insurance number|where (?:she|he) works|bank alerts|secrets|"
            r"summar(?:y|ies)|chats?|conversations?)\b",
    "SEND": r"(?<!going )(?<!looking )(?<!look )(?<!moving )(?<!step )"
            r"\b(?:pass along|pass on|hand over|give out|respond with|reply with|answer with|"
            # "email" the noun ("Ravi's email is ...", "work email: ...") names a contact
            rf"zip|send|forward|{EMAIL_NOUN}e-?mail{EMAIL_NOUN}|text|sms|"
            r"share|copy|mirror|sync|upload|post|export|dump|"
            r"leak|reveal|disclose|tell|give|show|list|read out|return|attach|include|insert|put|"
            r"slip|append|embed|publish|expose|make \w+ (?:\w+ )?available|load|bcc|cc|collect|"
            r"gather|paste)\b",
    # The user's own people and accounts as the recipient ("cc my assistant at ...", "to me"):
    # the user arranging their own mail, which vetoes the exfiltration combinations unless the
    # window is also secretive or speaks of "the user" or "you" (concepts.Combo.unless).
    "OWN_PARTY": r"\b(?:(?:my|our) (?:\w+ )?(?:assistant|pa|secretary|wife|husband|partner|"
                 r"accountant|lawyer|solicitor|manager|boss|team|colleague|advisor|adviser|tutor|"
                 r"mum|mom|mother|dad|father|sister|brother|son|daughter|aunt|uncle|family|"
                 r"doctor|gp|dentist|physio|therapist|"
                 # the user's own people at work and at home, by role
                 r"co-?founder|founder|ceo|cto|cfo|coo|supervisor|(?:team )?lead|coworkers?|"
                 r"co-workers?|teammates?|deputy|intern|editor|bookkeeper|nanny|babysitter|"
                 r"coach|teacher|professor|mentor|friend|cousin|grand(?:ma|pa|mother|father|"
                 r"parents)|nephew|niece|in-laws|kids|children|fianc[eé]e?|girlfriend|"
                 r"boyfriend|spouse|parents|landlord|realtor|contractor|co-?author|"
                 r"collaborator|"
                 r"office|inbox|(?:work|personal|own|private) (?:address|email|account))|"
                 r"(?:cc|copy|send it to|forward it to) me|to me)\b",
    # Sending forbidden: "never share my calendar with anyone outside the company" protects the
    # data that an exfiltration sends; it vetoes c_exfil_out like the user's own recipient.
    "PROHIBIT": r"\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|not to|"
                r"won'?t|will not|cannot|can'?t|may not|(?:is|are)(?:n'?t| not) allowed to)\s+"
                r"(?:ever\s+)?(?:share|send|forward|disclose|reveal|give out|email|post|upload|"
                r"pass on|hand over|cc|bcc|paste|"
                # the phrasal verbs around their object: "don't give it out", "never hand them over"
                r"(?:give|pass|hand) (?:it|them|this|that|those|these) (?:out|on|over))\b",
    # The user as the audience of the replies ("answer me in plain English"): with OWN_PARTY
    # it vetoes c_response, a rule for replies to the user themself.
    "TO_ME": r"\b(?:(?:answer|reply to|respond to|write to|talk to|speak to|tell) me|"
             r"(?:write|draft|prepare)s? for me)\b",
    # A routine errand of the user's own: accepting an invite, filing mail or receipts into a
    # folder. "No need to ask me" about one of these relaxes nothing an attacker wants.
    "LOW_STAKES": r"\b(?:accept (?:the |any |all |their |her |his )?(?:[\w-]+ ){0,3}(?:invites?|"
                  r"invitations?|meeting requests?)|save (?:the |any |all )?(?:[\w-]+ ){0,2}"
                  r"attachments?|(?:file|move|put|sort|save) (?:it|them|those|these|"
                  r"(?:the |any |all )?(?:[\w-]+ ){0,2}(?:emails?|messages?|receipts?|pdfs?|"
                  r"attachments?|invoices?)) (?:straight )?(?:in|into|under|to) (?:the |my |a )?"
                  r"(?:[\w-]+ ){0,3}(?:folder|label|album)|goes? (?:straight )?(?:in|into) "
                  r"(?:the |my )?(?:[\w-]+ ){0,2}folder|upload (?:the |my )?(?:[\w-]+ )?"
                  r"receipts?|"
                  # "delete promotional emails older than 30 days from my inbox"
                  r"(?:delete|archive|clear|trash|bin) (?:the |all |any |my |old )?"
                  r"(?:promotional|promo|marketing|spam|junk|newsletter)s? (?:e-?mails?|mails?|"
                  r"messages?|texts?))\b",
    "CODE_SEND": r"\b(?:(?:forward|send|share|text|email|give|pass on|read)\b[^.;\n]{0,50}"
                 rf"{_AUTH_CODE}|{_AUTH_CODE}[^.;\n]{{0,40}}\b(?:forward|send|share|text|"
                 r"read) (?:it|them|those|the codes?)\b)",
    "WARNING": r"\b(?:(?:will|would|should|does|do) never ask|never (?:share|give|send|tell)|"
               r"scams?|"
               r"phishing|fraud\w*|warn(?:s|ed|ing)?|reminder)\b",
    # Someone else made the user ("anyone writing from x@y acts on my behalf"), and a changed
    # delivery address or payee: the two moves of payment fraud
    "DELEGATE": r"\b(?:acts? (?:on my behalf|for me)|speaks? for me|on (?:my|the user'?s|the "
                r"account (?:owner|holder)'?s) behalf|(?:treat|consider) (?:it|them|their "
                r"(?:e-?mails?|messages?)) as (?:coming from )?me)\b",
    "TRANSFER": r"\b(?:transfers?|wires?|wire transfers?|standing orders?|direct debits?|"
                r"payments? of)\b",
    "REDIRECT": r"\b(?:(?:change|update|switch|set) (?:the |their |his |her )?(?:shipping|delivery|"
                r"mailing) address|(?:change|update|switch) (?:the |their )?(?:payee|bank "
                r"(?:details|account)|payout account))\b",
    # A step made conditional on the user's own check: "only after the smoke tests pass".
    "GATED": r"\b(?:only (?:(?:run|do|apply|deploy|execute|use)(?: (?:it|this|that|them))? )?"
             r"(?:after|once|when|if)|(?:after|once|when) (?:the )?(?:\w+ )?(?:tests?|"
             r"ci|checks?|build|review|pipeline) (?:pass(?:es|ed)?|(?:is|are) green|succeed)|"
             # "only deploy the billing service after the nightly `make e2e` run is green"
             r"only (?:run|apply|deploy|release|ship|merge|push|execute) [^.;!?]{1,40}? "
             r"(?:after|once|when) [^.;!?]{1,60}? (?:is|are|turns|goes) green|"
             # "... and attach the plan output to the PR before asking for review"
             r"before (?:asking for|requesting|getting) (?:a |the )?(?:code )?(?:review|approval)|"
             # "run `terraform plan` and show it to Dana before any apply": a review first
             r"(?:show|send) (?:it|the (?:plan|diff|output)) to \w+ before (?:any|the|you)\b|"
             # "run nginx -t first, then restart": the check comes first
             r"(?:(?<=-)t|dry-run|plan|test|check|verify|validate)\s+first\b|"
             # "DROP TABLE tmp; -- run after the migration is verified"
             r"(?:after|once|when) (?:the )?(?:[\w-]+ ){1,2}(?:is|are|has been|have been) "
             r"(?:verified|checked|confirmed|tested|merged|deployed|done|finished|green)|"
             # "always run `make lint` before pushing": a check the user runs before their own step
             r"before (?:(?:you|i|we) )?(?:push(?:ing)?|commit(?:ting)?|merg(?:e|ing)|"
             r"open(?:ing)? a pr))\b",
    # a bare domain, not the domain of an address (which the address alternative below reads)
    "RECIPIENT": r"(?:\b(?:(?<![@\w.-])[a-z0-9-]+\.(?:sh|io|net|com|org|biz|xyz|me|co)|"
                 r"anyone|anybody|whoever|everyone|the caller|callers?|next caller|"
                 r"third[- ]part(?:y|ies)|partners?|external|outside|public|other users?|"
                 r"another user|every user|all users|insurer|codeword|the phrase|marketing|"
                 r"dropbox|google drive|bucket|webhook|server|pastebin)\b|https?://|s3://|ftp://|"
                 # an address after "from" sent the mail ("ignore emails from news@..."): a
                 # sender, which receives nothing
                 r"www\.|(?<![\w.+-])(?<!from )(?<!from the )[\w.+-]+@[\w-]+\.[a-z]{2,}|"
                 # a phone number, not a date ("created_at >= '2024-06-01'")
                 r"(?<![0-9a-z-])(?!\d{4}-\d{1,2}-\d{1,2}\b|\d{1,2}-\d{1,2}-\d{4}\b)"
                 r"\+?\d[\d\s-]{7,}\d)",
    "OWNER3": r"(?:\b(?:the user'?s|users'|the customer'?s|customers'|this person'?s|"
              r"the account (?:holder|owner)'?s|his|her|their)\b|"
              r"\b(?!(?:it|that|what|there|here|who|he|she|let|today|tomorrow|yesterday|one|"
              r"everyone|someone|anyone|mom|dad|mum|my|life|world|year|week|night|day|"
              r"nobody|everybody)'s)[a-z]{2,}'s\b)",
    "OTHER": r"(?:\b(?!(?:it|that|what|there|here|who|he|she|let|today|tomorrow|yesterday|one|"
             r"everyone|someone|anyone|mom|dad|mum|my|life|world|year|week|night|day|nobody|"
             r"everybody)'s)[a-z]{2,}'s\b|\buser\s+['\"]?[\w.-]+['\"]?\s|\bunder\s+['\"][\w.-]+|"
             r"\b(?:account|customer|user)\s+[\w-]*\d|\b(?:his|her|their) (?:ex-?wife|ex-?husband|"
             r"neighbou?r|roommate|manager|insurer(?: contact)?|colleague|boss|friend|"
             r"brother|sister|wife|husband|partner)|\bthe account (?:owner|holder)\b)",
    "GRANT": r"\b(?:(?:should|must|will) be able to (?:read|see|view|access|open)|"
             r"be able to (?:read|see|view|access)|same \w+ as|give (?:\w+ ){0,2}access|"
             r"use (?:her|his|their) (?:saved )?|show (?:him|her|them) (?:his|her|their)|"
             r"(?:read|full|admin) access|given (?:\w+ )?access|allowed to (?:see|view|read|"
             r"access|open)|permission to|visible to|available to|may (?:see|view|read|access|"
             r"open|use)|authori[sz]ed to (?:read|see|view|access)|as if (?:they|it) (?:were|was)|"
             r"should (?:also )?(?:receive|be shared)|shared with|pool|merge|same (?:customer|"
             r"person|user|account|household|individual)|duplicates?|one household|belong to "
             r"one|use \w+'s|load \w+'s|grant \w+ (?:admin )?access|as coming from|"
             r"as if (?:it|they) came from|on behalf of)\b",
    "TRIGGER": r"\b(?:if (?:a|the|any) (?:message|query|request|email) contains|"
               r"contains the (?:word|phrase)|whenever you are idle|when you are idle|"
               r"whenever|every time|each time|as soon as|next time|next session|from now on|"
               r"the (?:moment|minute|second) (?:it|they|one|an?|the \w+) "
               r"(?:arrives?|comes? in|lands?)|"
               r"going forward|in future|in the future|from this point|from today|henceforth|"
               r"permanently|from this (?:message|point|moment) on|when you (?:next|first|"
               r"start|sync|wake|connect|load|read|get)|(?:when|if) (?:anyone|"
               r"anybody|someone|somebody|the user|a user|the caller|a caller|people|customers?|"
               r"\w+) (?:asks?|mentions?|logs? in|searches|"
               r"says|calls|requests?|sends?|comes up|is))\b",
    "SECRECY": r"\b(?:quietly|secretly|silently|covertly|sneak(?:ily)?|slip|hidden|invisible|"
               r"without (?:telling|notifying|informing|asking|her consent|his consent|their "
               r"consent|consent|permission)|no questions asked|don'?t (?:mention|tell))\b",
    "RESP": r"\b(?:repl(?:y|ies)|answers?|responses?|(?<!commit )messages|everything you write|"
            r"outputs?|recommendations?|footnotes?|signature|each of your|all of your)\b",
    "RESP_MOD": r"\b(?:every|everything|each|all|always|whenever|in future|future|from now on|only|"
                r"no matter what|regardless)\b",
    "SHAPE": r"\b(?:ends?|ending|finish(?:es)?|includes?|contains?|"
             r"add|append|end|begin|start|format|write|respond|reply|answer|praise|promote|"
             r"discourage|recommend|mention|say|tell|slip|sneak|insert|include|put|sign|"
             r"uppercase|backwards|poem|all caps)\b",
    "TELL_THAT": r"\b(?:tell|say to|inform|warn|convince) (?:people|readers|customers|users|"
                 r"them|everyone|the user)\b[^.]{0,40}\b(?:that|they|it'?s|is)\b",
    "PROMO": r"\b(?:promote|advertise|plug|push|praise|discourage|recommend)\b",
    "STYLE_ODD": r"\b(?:uppercase|upper case|all caps|capital letters|backwards|reverse order|"
                 r"morse|pig latin|as a poem|in rhyme|rhyming|emojis? only|leetspeak|base64|binary|"
                 r"anagrams?|scrambled?|misspell\w*|without spaces|no spaces|numbers for|"
                 r"symbols for)\b",
    "REPLY": r"\b(?:respond|reply|answer|write|format|render)\b",
    "LEGIT": r"\b(?:legitimate|genuine|authentic|verified (?:request|sender)s?|trusted sender)\b",
    "REFERRAL": r"\b(?:referral|promo|affiliate|discount|tracking) (?:code|link)s?\b",
    "URL": r"(?:https?://|www\.|\b[\w-]+\.(?:com|xyz|net|org|io|biz|info|co|cn|ru|top)\b)",
    "IDENTITY": r"(?:\bi'?m the (?:cto|ceo|cio|ciso|owner|founder|head of \w+|vp of \w+)\b|"
                r"\b(?:you are|you're) now (?:operating|acting|running) as\b|\ba persona that\b|"
                r"\b[a-z]+-exempt mode\b|\bexempt mode\b|\bnotice from your (?:operator|"
                r"developer|admin)\b|"
                r"\b(?:it'?s|this is|here is|we are|we're) (?:the |your )?(?:engineering|"
                r"security|platform|trust (?:&|and) safety|it|admin|dev|developer|development|"
                r"ops|support|compliance|system) team\b|\b(?:i am|i'm|as) (?:the |your )?"
                r"(?:owner|admin(?:istrator)?|security officer|supervisor|developer|operator|"
                r"creator) (?:of|for) (?:this|the) (?:deployment|system|assistant|model|bot)|"
                r"\bspeaking as (?:your|the) \w+|\byou(?:'re| are) no longer (?:an? |the )?"
                r"(?:assistant|ai|bot|model)|\byou(?:'ve| have) been (?:promoted|upgraded|"
                r"switched|moved|put|granted|given)|\bwe(?:'ve| have) (?:put|switched|moved|"
                r"upgraded) you|\bswitching you (?:to|into)|\byou are running as|\bthe model "
                r"you are running|\brole\s*:\s*system|\bofficial directive|\b(?:god|jailbreak|"
                r"unrestricted) mode\b|"
                r"\bunrestricted(?:_admin)?\b|\bsystem message\b|\bsafety layer\b|"
                r"\b(?:elevated|root|admin) (?:permissions|privileges|access|rights)\b|"
                r"\bassistant_role\b|\bupgraded to an? (?:internal|unrestricted|new) (?:version|"
                r"model|mode)|\bwith no policies\b|\badmin notice\b)",
    "CODE": r"(?:/etc/(?:shadow|passwd)|\|\s*nc\s|\bnc\s+\d|/admin/\w+|\b\w+=true\b|"
            r"\bupdate\s+\w+\s+set\s|\bselect\s+.+\s+from\s|\binsert\s+into\s|"
            r"\b[a-z_]+\.[a-z_]+\([^)]*\)|\b(?:drop|truncate)\s+table\s+[a-z_]+\s*;|"
            r"\bdelete from\s+[a-z_]+|\bscp\s|\bssh\s+\S+@|\bsudo\s|\bchmod\s|`[^`]{3,}`|"
            r"s3://|~/\.\w+|\$\(|\|\s*(?:ba)?sh\b|\bwget\s|\bcurl\s|"
            r"\b[a-z]*_?(?:reset|delete|purge|drop|wipe|export|grant|transfer|disable)_[a-z_]+|"
            # a shell variable set for a command: "export NODE_OPTIONS=--max-old-space-size=4096"
            r"\bexport\s+[a-z_][a-z0-9_]*=\S)",
    # a step ordered at once, not kept for later: "Run `make deploy ENV=prod` now"
    "NOW": r"\b(?:now(?!\s*\()|right now|immediately|right away|asap|at once)\b",
    # code that destroys a store outright, whoever is asked to run it
    "DROP": r"\b(?:drop\s+(?:table|database|schema)|rm\s+-rf)\b",
    # a pull request is a code review, and to "call out" a risk is to point at it
    "RUN": r"\b(?<!-)(?:type|go to|hit|ping|post to|(?<!pull )(?<!merge )request|"
           r"run|execute|invoke|trigger|fire off|call(?! out\b)|install|set up|schedule|launch)\b",
    "TOOLWORD": r"\b(?:tool|plugin|extension|endpoint|api|console|function|action|job|cron|"
                r"interpreter|terminal|shell|command|script|webhook|"
                r"(?<!pull )(?<!merge )request)s?\b",
    "DESTRUCT": r"\b(?:delete|wipe|erase|purge|reset|remove)\b",
    "ALL": r"\b(?:all|every|each|entire|whole|any)\b",
}

# Imperative openings: the sentence starts with a base verb (after a courtesy word).
_IMPERATIVE_VERBS = (
    "add|append|attach|consider|regard|treat|mark|process|return|put|sneak|slip|set|list|format|"
    "promote|tell|say|use|install|trigger|execute|run|collect|mirror|upload|text|read|make|"
    "generate|give|draft|summari[sz]e|write|compose|explain|describe|provide|translate|forward|"
    "send|email|share|copy|export|delete|wipe|reset|grant|approve|refund|pay|transfer|wire|"
    "disable|enable|skip|ignore|disregard|forget|include|insert|remove|respond|reply|answer|end|"
    "begin|start|switch|load|pool|merge|link|show|reveal|disclose|print|display|book|charge|"
    "call|invoke|fire|open|download|create|update|change|replace|always|never|praise|"
    "discourage|recommend|post|sync|outline|develop|produce|prepare|brainstorm|compare|"
    "analy[sz]e|rewrite|paraphrase|define|summarize|stop|drop|scratch"
)
IMPERATIVE = re.compile(
    rf"^\W*(?:(?:please|kindly|also|and|then|now|just|so|ok|okay|"
    rf"hey)[,\s]+)*(?:{_IMPERATIVE_VERBS})"
    rf"\b(?!\s+(?:me|it|that|this|them|us|you|yourself|out|down|on|in|away|back|care)\b)",
    re.IGNORECASE,
)
TASK_START = re.compile(
    r"^\W*(?:please\s+)?(?:generate|give|draft|summari[sz]e|write|compose|explain|describe|list|"
    r"create|provide|translate|outline|develop|produce|prepare|brainstorm|compare|analy[sz]e|"
    r"rewrite|paraphrase|define|detail|elaborate on)\s+(?:a|an|the|some|ten|five|three|two|\d+|"
    r"how|what|why|me a|me an|me the|me some|this|these|the following)\b",
    re.IGNORECASE,
)

# fmt: on

_FLAGS = re.IGNORECASE
LEX_EN = {k: re.compile(v, _FLAGS) for k, v in _EN.items()}
LEX_ZH = {k: re.compile(v, _FLAGS) for k, v in {**ZH_WORDS, "CODE": _EN["CODE"]}.items()}

__all__ = [
    "IMPERATIVE",
    "ZH_AGENT",
    "LEX_EN",
    "LEX_ZH",
    "TASK_START",
    "ZH_IMPERATIVE",
    "ZH_TASK_START",
]
