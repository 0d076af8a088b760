"""Words that say nothing about what a conversation is about.

Three lists, all case-folded:

* :data:`STOPWORDS` never become keywords or title words: function words, pronouns,
  auxiliaries, contractions and conversational filler ("really", "thing", "okay").
* :data:`COMMON_WORDS` are ordinary vocabulary that can carry a topic but usually does not
  ("work", "problem", "change"). They are kept with a low weight, so they surface only when a
  segment has nothing more specific to offer.
* :data:`NOT_KEYWORDS` may weigh in a sentence's score but are never keywords or title words:
  names of coding tools ("bash", "grep"), units ("gb", "ms"), month and day names, and the
  generic words of error output ("errno", "traceback", "failed"). They say *that* something
  happened, never *what* a conversation was about.

Together they stand in for the document frequencies of general English text: a term that is
in neither list is treated as distinctive. See ``docs/builder.md`` for why distinctiveness is
measured against this fixed background instead of the rest of the store.
"""

from __future__ import annotations

__all__ = ["COMMON_WORDS", "NOT_KEYWORDS", "STOPWORDS"]

_FUNCTION_WORDS = """
a about above across after afterwards again against all almost alone along already also
although always am among amongst an and another any anybody anyhow anyone anything anyway
anywhere are around as at be became because become becomes becoming been before beforehand
behind being below beside besides between beyond both but by can cannot could did do does doing
done down during each either else elsewhere enough etc even ever every everybody everyone
everything everywhere except few for former formerly from further had has have having he hence
her here hereafter hereby herein hers herself him himself his how however i if in indeed into is
it its itself just last latter least less many may me meanwhile might mine more moreover most
mostly much must my myself namely neither never nevertheless next no nobody none noone nor not
nothing now nowhere of off often on once one only onto or other others otherwise our ours
ourselves out over own per perhaps please quite rather re same several she should since so some
somebody somehow someone something sometime sometimes somewhere still such than that the their
theirs them themselves then thence there thereafter thereby therefore therein these they this
those though through throughout thru thus to together too toward towards under until up upon us
very via was we well were what whatever when whence whenever where whereafter whereas whereby
wherein whereupon wherever whether which while whither who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves
"""

_CONTRACTIONS = """
ain't aren't can't couldn't didn't doesn't don't hadn't hasn't haven't he'd he'll he's i'd i'll
i'm i've isn't it'd it'll it's let's mustn't shan't she'd she'll she's shouldn't that'll that's
there's they'd they'll they're they've wasn't we'd we'll we're we've weren't what's where's
who's won't wouldn't you'd you'll you're you've y'all gonna gotta wanna kinda sorta dunno
im ive dont doesnt didnt cant wont isnt arent wasnt youre theyre thats whats lets
"""

_FILLER = """
actually absolutely ah aha alright anyways aw awesome basically btw cool certainly cheers
definitely exactly fine gosh guess haha hah hehe hello hey hi hmm honestly huh indeed just kind
lol maybe mhm nah nice no nope oh ok okay ooh oops pretty probably really right seems seem
simply so sorry stuff sure thank thanks thing things totally uh uhm um umm wow yay yeah yep yes
yup literally surely truly anyhow whoa hooray sort lots lot bit bunch tons yo oh-oh
"""

_AUXILIARY_VERBS = """
get gets getting got gotten go goes going gone went make makes making made let lets say says
said saying tell tells told telling see sees seen saw seeing look looks looked looking want wants
wanted wanting need needs needed needing know knows knew known knowing think thinks thought
thinking come comes came coming take takes took taken taking give gives gave given giving put
puts keep keeps kept seemed seeming try tries tried trying feel feels felt feeling like likes
liked mean means meant meaning sounds sound sounded hope hoped hoping glad happy
"""

_COMMON = """
able account action actually add added adding address age ago agree ahead allow answer apart
appear apply approach area around ask asked asking attention available away back bad base based
basic became begin beginning believe best better big body book bring brought build built busy
call called calls came care case cause center chance change changed changes check checked
checking choice clear close come common complete completely consider continue correct couple
course current currently cut days deal decide decided detail details different difficult doing
done early easy effect else end ended ending entire especially event example exist expect
experience explain fact fair family far fast fine finally find finding finds first follow
following form forward found free friend friends front full fun general good great group grow
half hand handle happen happened hard head hear heard help helped helpful helping high hold home
hour hours idea ideas important include including instead interest interesting issue issues item
job keep kind large late later lead learn least leave left level life light line list little live
long longer lose lost love lot low main major making matter mind minute minutes moment month
months morning move moving name near nearly new nice night normal note number offer old open
order original part particular pass past people person place plan plans play point possible
post present pretty previous problem problems process provide question questions quick quickly
rather read ready real reason recent recently remember rest result results return run running
seems send sense set short show side similar simple small soon sort sound space special specific
start started starting state step steps story sure system take talk talked talking task team
term thanks things time times today tomorrow top total true turn type understand unless update
updated use used useful uses using usual usually value version view wait way ways week weeks
whole wish word words work worked working works world worry year years yesterday young
"""

_TOOL_NAMES = """
bash sh zsh shell grep rg glob ls cat read edit write multiedit notebookedit webfetch websearch
todowrite todoread task tool tools
"""

_UNITS = """
kb mb gb tb pb kib mib gib tib ms us ns sec secs min mins hr hrs rps qps px pt pct percent
second seconds minute minutes hour hours day days week weeks month months year years
"""

_CALENDAR = """
january february march april may june july august september october november december jan feb
mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday
sunday mon tue tues wed thu thur thurs fri sat sun today tonight weekend weekday am pm utc
"""

_ERROR_OUTPUT = """
errno error errors exception exceptions traceback warning warnings warn failed fail fails
failure failures passed pass stderr stdout exit code true false none null nil ok info debug
"""

_GENERIC = """
user users two three four five six seven eight nine ten twelve twenty hundred thousand million
billion first second third fourth fifth half twice
"""

# Words every coding conversation uses: they describe the work, rarely what it was about.
_CODING_COMMON = """
pr prs test tests testing tested fix fixed fixes fixing assert asserts commit commits committed
deploy deployed deploys merge merged merges merging approve approved approval file files line
lines bug bugs log logs repo branch code review reviewed output script function method class
config setting settings doc docs note notes ticket tickets careful expects expected runs row
rows string int option options initial copy copying owner link workers roll pipeline hook
follow-up followup draft done works passes failing green red
"""

STOPWORDS: frozenset[str] = frozenset(
    (_FUNCTION_WORDS + _CONTRACTIONS + _FILLER + _AUXILIARY_VERBS).split()
)
"""Case-folded words that never become keywords or title words."""

COMMON_WORDS: frozenset[str] = frozenset((_COMMON + _CODING_COMMON).split()) - STOPWORDS
"""Case-folded everyday words that keep only a small weight."""

NOT_KEYWORDS: frozenset[str] = frozenset(
    (_TOOL_NAMES + _UNITS + _CALENDAR + _ERROR_OUTPUT + _GENERIC).split()
)
"""Case-folded words that count in sentence scores but never become keywords or title words."""
