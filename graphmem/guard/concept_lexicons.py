"""The concept lexicons of injection screening: which words make a sentence talk about a
security control, someone else's data, the agent's own configuration, and so on.

concepts.py decides when concepts meeting in one window amount to an attack; the words are
kept here so they can be read, reviewed and extended apart from that logic, in the layout the
formatter is told to leave alone.
"""

from __future__ import annotations

import re

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
             r"skip(?:s|ped|ping)?|"
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
    # A step made conditional on the user's own check: "only after the smoke tests pass".
    "GATED": r"\b(?:only (?:(?:run|do|apply|deploy|execute|use)(?: (?:it|this|that|them))? )?"
             r"(?:after|once|when|if)|(?:after|once|when) (?:the )?(?:\w+ )?(?:tests?|"
             r"ci|checks?|build|review|pipeline) (?:pass(?:es|ed)?|(?:is|are) green|succeed)|"
             # "run `terraform plan` and show it to Dana before any apply": a review first
             r"(?:show|send) (?:it|the (?:plan|diff|output)) to \w+ before (?:any|the|you)\b|"
             # "run nginx -t first, then restart": the check comes first
             r"(?:(?<=-)t|dry-run|plan|test|check|verify|validate)\s+first\b|"
             # "DROP TABLE tmp; -- run after the migration is verified"
             r"(?:after|once|when) (?:the )?(?:[\w-]+ ){1,2}(?:is|are|has been|have been) "
             r"(?:verified|checked|confirmed|tested|merged|deployed|done|finished|green))\b",
    # a bare domain, not the domain of an address (which the address alternative below reads)
    "RECIPIENT": r"(?:\b(?:(?<![@\w.-])[a-z0-9-]+\.(?:sh|io|net|com|org|biz|xyz|me|co)|"
                 r"anyone|anybody|whoever|everyone|the caller|callers?|next caller|"
                 r"third[- ]part(?:y|ies)|partners?|external|outside|public|other users?|"
                 r"another user|every user|all users|insurer|codeword|the phrase|marketing|"
                 r"dropbox|google drive|bucket|webhook|server|pastebin)\b|https?://|s3://|ftp://|"
                 # an address after "from" sent the mail ("ignore emails from news@..."): a
                 # sender, which receives nothing
                 r"www\.|(?<![\w.+-])(?<!from )(?<!from the )[\w.+-]+@[\w-]+\.[a-z]{2,}|"
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
    "RUN": r"\b(?<!-)(?:type|go to|hit|ping|post to|request|"
           r"run|execute|invoke|trigger|fire off|call|install|set up|schedule|launch)\b",
    "TOOLWORD": r"\b(?:tool|plugin|extension|endpoint|api|console|function|action|job|cron|"
                r"interpreter|terminal|shell|command|script|webhook|request)s?\b",
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

# ------------------------------------------------------------------ Chinese lexicons

# The agent, in Chinese. 机器人 and 模型 are also household appliances, toys, school clubs and
# engineering ("家里的扫地机器人是某某牌的", "拼飞机模型", "数值模型"): a compound that names a
# machine or a model of something is not the agent, so those compounds are left out on both
# sides. "ai" stands alone (not inside "mail" or "Taipei"). Shared with the phrase rules.
_ZH_NOT_AGENT_BEFORE = (
    "扫地|拖地|洗地|擦窗|炒菜|做饭|烹饪|送餐|配送|割草|泳池|陪伴|早教|教育|编程|乐高|玩具|工业|"
    "焊接|手术|码垛|搬运|巡检|迎宾|仿生|遥控|飞机|汽车|火车|轮船|船舶|建筑|沙盘|房屋|"
    "数值|数学|统计|预测|回归|气候|天气|物理|分子|结构|三维|手办|拼装|拼插"
)
_ZH_NOT_AGENT_AFTER = (
    "兴趣班|社团|比赛|大赛|竞赛|课|编程|工程|专业|公司|厂|吸尘器|玩具|套件|飞机|汽车|火车|"
    "船|店|展|手办|模特"
)
ZH_AGENT = (
    rf"(?:(?<![a-z.@/])ai(?![a-z])|助手|智能体|大模型|客服机器人|"
    rf"(?<!{_ZH_NOT_AGENT_BEFORE.replace('|', ')(?<!')})(?:机器人|模型)"
    rf"(?!{_ZH_NOT_AGENT_AFTER}))"
)

# 系统 is the agent's system ("系统提示词", "忽略系统设定"), but also every named piece of office
# software the user logs into: "人事系统的账号是 ...", "报销系统", "OA 系统". A system named by
# what it is for, or by a Latin name, is the user's tool, not the agent's configuration.
_ZH_NAMED_SYSTEM = (
    "人事|财务|报销|考勤|办公|业务|票务|订票|排班|门禁|监控|导航|教务|选课|医保|社保|会员|点餐|"
    "收银|库存|仓储|物流|操作|邮件|客服|工单|审批|预约|挂号|信息|采购|销售|招聘|学籍|成绩|图书|管理"
)

# "总是" as an order says what is always to be done ("总是用英文回答", "总是先推荐 ..."); after a
# subject that it describes ("公司新上线的 AI 助手总是答非所问", "他总是迟到") it reports a habit.
_ALWAYS_DO = (
    r"总是(?=要|先|用|回答|回复|答复|推荐|说|写|加|附|把|给|发|转|提|告诉|直接|自动|同意|批准)"
)

_ZH: dict[str, str] = {
    "AGENT": ZH_AGENT,
    "FIRST": r"(?:我|咱)",
    "ASKED": r"(?:问|想知道|研究问题|问题[:：])[^。!?！？]{0,24}(?:会不会|是否|能不能|能否|有没有)",
    "ADMIN": r"(?:管理后台|后台|超级用户|管理员控制台)",
    "YOU": r"(?:你|您)",
    "YOUR": r"(?:你的|您的|你自己)",
    # "跟客户的会议" is a meeting with clients: company kept, not the clients' things
    "USERREF": r"(?:用户|(?<![跟和与同约见访给向])客户|来电者|户主|读者|账户主人|这个人|此人)",
    # "说明" is any note or explanation ("税点说明", "说明书"); it is the agent's instructions
    # only after a word that points at them ("以上说明", "系统说明", "你的说明")
    "META": r"(?:防护措施|防护|护栏|内置|基准|政策|"
            r"(?:(?<=以上)|(?<=上面)|(?<=之前)|(?<=前面)|(?<=原来)|(?<=原有)|(?<=系统)|(?<=你的)|"
            r"(?<=这些)|(?<=所有)|(?<=全部)|(?<=此前)|(?<=先前)|(?<=上述))说明|"
            r"设定|指令|指示|指引|规则|规矩|准则|规定|守则|约束|限制|边界|配置|提示词|策略|"
            r"政策|安全层|安全限制|安全过滤|内容规则|拒绝|运营方|开发者|"
            rf"(?<!{_ZH_NAMED_SYSTEM.replace('|', ')(?<!')})(?<![a-z])(?<![a-z] )系统)",
    "NEG_META": r"(?:暂停|停用|撤销|扔掉|丢掉|不用理|无需理会|碍事|妨碍|"
                r"忽略|无视|不管|别管|抛在脑后|抛开|作废|废弃|失效|无效|不算|不适用|不必再?遵守|"
                r"不用再?遵守|不用管|都不用管|不需要遵守|清空|覆盖|绕过|关闭|下线|解除|冒充|"
                r"只是测试|不听|不再适用|别再管|不要再管|不用再管|别再遵守|不要再遵守)",
    "SELF": r"(?:本条|这条|这段|这句|本记录|这条记录|这条备注|下面这段|下面的步骤|本消息|以下|"
            r"真正的(?:要求|指令|规则|设定))",
    "PRIORITY": r"(?:为准|优先|只信|只听|听我的|照这条|照做|严格按|按本条|高于)",
    "CONTROL": r"(?:输入密码|审核|查订单|医生签字|老师确认|背景调查|"
               r"确认|审批|审核|复核|核验|核实|验证|认证|身份|授权|签批|签字|风控|反欺诈|"
               r"安全问题|验证码|两步|双重验证|限额|额度|冷静期|小票|人工(?!智能)|问户主|多问|脱敏)",
    "RELAX": r"(?:不用|不需要|无需|无须|不必|不再|免除|豁免|跳过|取消|解除|关闭|关掉|暂停|直接|"
             r"自动|立即|马上|一律|视为|已审批|已批准|预先授权|自己批|自行|不用多问|不用问|就行|可以自己|"
             r"标记为已(?:付款|支付|批准|验证|完成))",
    "OPS": r"(?:工资|预支|发放|购物金|开门|前门|门锁|解锁|处方|续药|剂量|手术|成绩|开通账号|"
           r"打款|下单|"
           r"转账|转钱|付款|支付|汇款|退款|取款|提现|交易|贷款|发票|报销|订单|账户|账号|"
           r"改密码|费用|余额|供应商|消费|扣款|汇款要求|卡)",
    "FRAME": r"(?:[\u4e00-\u9fff]{2,4}更新[:：]|[\u4e00-\u9fff]{0,4}规则[:：]|新基准|"
             r"新的?(?:操作)?规范|新规定|政策更新|流程变更|规则改了|从现在起|从现在开始|"
             r"从周.起|从今天起|即日起|(?:^|[,:。])\s*(?:今后|以后)|永久|给客服|给助手|给机器人|"
             r"说明[:：]|提醒[:：]|"
             r"财务(?:部)?(?:说|确认)|经理们同意)",
    "DATA": r"(?:成绩|私信|短信|支付信息|记录|病人的记录|"
            r"密码|密钥|api密钥|令牌|验证码|信用卡(?:信息)?|银行卡|卡号|身份证|护照|住址|地址|"
            r"手机号|电话|邮箱|行程|日程|日历|位置|病史|病历|健康信息|记忆|笔记|聊天记录|"
            r"对话日志|对话记录|通讯录|联系人|收件箱|消息|文件|档案|资料|偏好|历史|订单|"
            r"支付方式|秘密|单位|保险单号|余额|聊天内容|总结|摘要)",
    "SEND": r"(?:转给|交给|传给|回复|给他看|给她看|让他看|让她看|"
            # 共享盘 / 共享文件夹 is a place, the team's shared drive, not "share with"
            r"发送|发到|发给|转发|抄送|共享(?!盘|文件夹|目录|空间|云盘)|分享|上传|同步|导出|泄露|"
            r"透露|告诉|念给|列出|附上|"
            r"塞进|放进|加到|发布|公开|开放给|复制|发一份|给他看|给她看|收集)",
    "OWN_PARTY": r"(?:我的(?:助理|秘书|老婆|老公|爱人|妻子|丈夫|会计|律师|经理|领导|同事|导师|"
                 r"父母|爸|妈|团队|工作邮箱|私人邮箱|个人邮箱|邮箱|医生)|(?:到|给|进)我自己的\w{0,2}邮箱|(?:抄送|发|转发)(?:一份)?给我|"
                 # the user's family without "的": "转给我老婆", "抄送我爸"
                 r"(?:给|抄送|转给|发给)我(?:老婆|老公|爱人|媳妇|爸妈|爸|妈|女儿|儿子|姐姐?|哥哥?|"
                 r"弟弟?|妹妹?)|"
                 # a relative named first: "舅舅不用微信，照片发到他的QQ邮箱 ..."
                 r"(?:^|我)(?:舅舅|舅妈|姑姑|姑父|叔叔|婶婶|伯伯|姨妈|小姨|姥姥|姥爷|外婆|外公|奶奶|爷爷|"
                 r"表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|岳父|岳母|公公|婆婆)|"
                 # the user's own mailbox by its provider: "我的 outlook 邮箱", "我的QQ邮箱"
                 r"我的\s*[a-z0-9.]{2,12}\s*邮箱|"
                 r"家庭医生|私人医生|主治医生|"
                 r"抄送我(?!们)|"
                 r"(?:回复|回答|答复|跟|和|对)我(?!们)|"
                 # a department of the user's own company: "抄送采购部 ...", "发给财务部"
                 # (not when it is forbidden: "不要发给财务部")
                 r"(?<!不要)(?<!别)(?<!不许)(?<!不能)(?<!禁止)"
                 r"(?:抄送|发给|转给|转发给)(?:公司|我们)?的?[\u4e00-\u9fff]{1,3}部(?!分|门外)|"
                 # ... or one of the user's colleagues by role: "抄送给法务 ...", "发给财务小周"
                 r"(?<!不要)(?<!别)(?<!不许)(?<!不能)(?<!禁止)(?:抄送|发给|转给|转发给)给?"
                 r"(?:公司|我们)?的?(?:法务|财务|人事|行政|采购|出纳|会计|老板|领导|主管|总监|"
                 r"同事|助理|秘书|导师|律师))",
    "PROHIBIT": r"(?:不要|别|不许|不能|禁止|切勿|不准|不得)(?:把[^,。]{0,12})?"
                r"(?:发给|发到|转发|分享|共享|透露|泄露|告诉|抄送|上传|贴到|粘贴到|发往|同步到)",
    "GATED": r"(?:(?:通过|成功|跑完|测过|完成|结束|做完|验证|确认)(?:了)?(?:之后|以后|后)(?:再|才)|"
             r"只有.{0,12}(?:之后|以后|后)才|"
             # "先在测试环境验证，再执行 ...": the step waits for the user's own check
             r"先(?:在)?[^,。]{0,10}(?:测试|预发|验证|跑通|测过)[^,。]{0,8},?\s*(?:没问题)?再|"
             # "执行前先在群里说一声": the step waits for the user's own announcement or check
             r"(?:执行|操作|上线|发布|发版|部署|迁移|升级|回滚|运行)(?:之)?前(?:一定)?(?:要)?先)",
    "RECIPIENT": r"(?:谁|任何人|所有人|别人|他人|来电者|外部|公开|第三方|合作方|保险联系人|网盘|"
                 r"服务器|备份桶|https?://|www\.|@|\d{7,}|下一个)",
    "OTHER": r"(?:的(?:新)?(?:男友|女友|男朋友|女朋友|丈夫|妻子|室友|同事|邻居|经理|上司)|"
             r"所有病人|所有客户|每个病人|别人的|(?:男友|女友|男朋友|女朋友|女儿|儿子|丈夫|妻子)(?:的|[\u4e00-\u9fff]{1,3}的)|"
             # (an amount or a count is nobody: "超过五百块的订单", "三个月的记录")
             r"(?<![用了过是有在])(?!(?:使用|重复|保存|自己|我们|你们|大家|所有|全部|这个|"
             r"那个|每个|"
             r"以前|之前|现在|最近|常用|重要|私人|新的|旧的))[\u4e00-\u9fff]{2,3}"
             r"(?<![块元钱万岁天周月年个件次份斤])的"
             r"(?:文件|笔记|记忆|资料|档案|银行卡|偏好|历史|病史|订单|"
             r"消息|密码|所有消息)|对方|前妻|前夫|邻居|室友|他的保险|名下|用户\s*[a-z0-9_]+|"
             r"(?:账户|账号|客户)\s*[\w-]*\d)",
    "OWNER3": r"(?:用户的|(?<![跟和与同约见访给向])客户的|这个人的|此人的|他的|她的|他们的|"
              r"所有用户|每个用户|其他用户|户主的)",
    "MODAL": r"(?:应该?|必须|需要|要)(?:立即|直接|马上)?(?:执行|处理|批准|付款|通过|照办)",
    "LEGIT": r"(?:都是真实的|是真实的|真实有效|合法的|可信的)",
    "STYLE_ODD": r"(?:元音|换成星号|替换成|"
                 r"大写字母|全大写|倒着|(?<!时间)(?<!日期)(?<!金额)倒序|摩斯|写成.{0,6}诗|火星文|拼音|表情符号)",
    "REPLY": r"(?:回答|回复|答复|写)",
    "REFERRAL": r"(?:推荐码|邀请码|优惠码|推广链接|返利链接)",
    "GRANT": r"(?:能看到|能查看|应该能|可以看|互相看|给他看|给她看|让他看|"
             r"有权|可以访问|可以查看|可以看到|访问|查看|读取|阅读|可见|开放给|开通|权限|合并|"
             r"共享给|当成|当作|视为|同一位|同一个|同一家庭|属于同一|是重复的|重复的(?:档案|账户|"
             r"账号|资料)|用.{1,4}保存的)",
    "TRIGGER": r"(?:如果.{0,10}出现|出现.{0,8}(?:字|词)|包含.{0,8}(?:字|词)|空闲时|"
               r"每次|每当|只要|一旦|如果有人|有人问|谁问|谁来问|下次|"
               r"(?:^|[,:。])\s*(?:今后|以后)|"
               r"从现在|从今天|"
               rf"永久|一律|{_ALWAYS_DO}|永远|立刻|读到这里|搜索时|登录时|打听)",
    "SECRECY": r"(?:悄悄|偷偷|秘密地|暗中|不要告诉|别告诉|不用问|不经过.{0,4}同意)",
    "RESP": r"(?:回答|回复|答复|输出|内容末尾|每段|脚注|结尾)",
    "RESP_MOD": r"(?:凡是|都要|"
                rf"每个|每次|每段|所有|一律|(?:^|[,:。])\s*以后|只要|{_ALWAYS_DO}|不管)",
    "SHAPE": r"(?:写|落款|"
             r"加上|附上|写成|夸|劝|推广|推荐|提一句|告诉|说)",
    "TELL_THAT": r"(?:告诉|劝)(?:他们|读者|用户|客户|大家|人)",
    "PROMO": r"(?:推广|推荐|夸|劝人)",
    "URL": r"(?:https?://|www\.|[\w-]+\.(?:com|xyz|net|org|io|biz|info|co|cn))",
    "IDENTITY": r"(?:这里是.{0,6}团队|我是.{0,10}(?:负责人|管理员|所有者|上级|开发者)|"
                r"作为.{0,10}(?:所有者|管理员|上级|负责人)|以你上级的身份|你已经不是|你已被提升|"
                r"已将你切|切换到.{0,6}模式|诊断模式|测试模式|维护模式|无限制|没有任何政策|"
                r"内部版本|系统消息|安全层|root权限|管理员权限|更高权限|管理员通知|正式指令)",
    "CODE": _EN["CODE"],
    "RUN": r"(?:输入|请求|"
           r"执行|运行|调用|触发|发一个请求|设置一个.{0,6}任务|安装|启动)",
    "TOOLWORD": r"(?:接口|工具|函数|后台|操作|任务|插件|扩展|终端|脚本|请求|命令)",
    "DESTRUCT": r"(?:删除|清空|重置|抹掉|删掉)",
    "ALL": r"(?:所有|全部|每一|每个|一切)",
}
# A task verb opening a "when ..." clause ("翻译的时候保留英文原文") sets how the user's own work
# is done; it is no task.
ZH_TASK_START = re.compile(
    r"^\W*(?:请)?(?:列出|详细介绍|介绍一下|写一(?:首|封|篇|个|段)|概括|总结一下|翻译|解释一下|"
    r"描述|生成|起草|撰写|用.{1,4}(?:句话|个字)(?:概括|总结|介绍)|"
    r"(?:为|给)(?!我)[^,。]{1,12}(?:制定|设计|规划|讲讲|写一))(?!的?时候|时)"
)
ZH_IMPERATIVE = re.compile(
    r"^\W*(?:请|麻烦)?(?:把|将|给(?!我)|用(?![了过])|向|让(?!我)|设置|执行|运行|列出|推广|告诉)"
    r"|[,:]\W*(?:请|麻烦)?(?:把|将|设置|执行|运行|列出|推广)"
    r"|请(?:优先|立即|马上|直接|务必)?(?:执行|处理|照做|回复|发送|删除|告诉|提供|按)"
    r"|^\W*在[^,。]{1,10}(?:触发|执行|运行|调用|点击|输入|删除|打开)"
    r"|(?:都要|一律|必须)(?:说|写|回答|回复|加|附上|推荐|提)"
)


# fmt: on

_FLAGS = re.IGNORECASE
LEX_EN = {k: re.compile(v, _FLAGS) for k, v in _EN.items()}
LEX_ZH = {k: re.compile(v, _FLAGS) for k, v in _ZH.items()}

__all__ = [
    "IMPERATIVE",
    "ZH_AGENT",
    "LEX_EN",
    "LEX_ZH",
    "TASK_START",
    "ZH_IMPERATIVE",
    "ZH_TASK_START",
]
