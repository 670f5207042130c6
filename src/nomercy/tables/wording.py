"""How the text interfaces (the terminal app and the command line's narration) word the
engine's event texts: counts read as English, nothing repeated.

The engine's own texts stay as they are (the golden corpus pins them, and the web client
words events from their data with its translated templates); these functions only reword
them for a reader.

>>> event_words("P1 discards 1 more red card(s) under the Discard All (R5); "
...             "their effects are ignored [NM-27]")
'P1 discards 1 more red card under the Discard All (R5); their effects are ignored [NM-27]'
>>> event_words("Penalty 4, last +4: P2 must draw 4 [CL-6]")
'Penalty 4: P2 must draw 4 [CL-6]'
>>> event_words("Penalty 6 (+2 +4), last +4: P2 must stack or draw [NM-16]")
'Penalty 6 (+2 +4), last +4: P2 must stack or draw [NM-16]'
"""

from __future__ import annotations

import re

__all__ = ["event_words"]

_DRAWS_UNTIL = re.compile(r"draws (\d+) until a playable card and (must|may) play it")
_CARDS_MAYBE = re.compile(r"\b(\d+) (more \w+ )?card\(s\)")
#: A penalty of one card: its total is its last card, said once.
_ONE_CARD_PENALTY = re.compile(r"\bPenalty (\d+), last \+(\d+):")


def event_words(text: str) -> str:
    """An event's text for a reader: "draws 1 until a playable card" becomes "draws 1 card, a
    playable one", "draws 3 until ..." "draws 3 cards until ..."; "1 more red card(s)" says
    "card" and "2 ..." "cards"; a penalty of one card ("Penalty 4, last +4") gives its total
    once."""

    def draws(m: re.Match[str]) -> str:
        n, verb = m.group(1), m.group(2)
        if n == "1":
            return f"draws 1 card, a playable one, and {verb} play it"
        return f"draws {n} cards until a playable one and {verb} play it"

    def cards(m: re.Match[str]) -> str:
        n, more = m.group(1), m.group(2) or ""
        return f"{n} {more}card{'' if n == '1' else 's'}"

    def penalty(m: re.Match[str]) -> str:
        total, last = m.group(1), m.group(2)
        return f"Penalty {total}:" if total == last else m.group(0)

    text = _DRAWS_UNTIL.sub(draws, text)
    text = _CARDS_MAYBE.sub(cards, text)
    return _ONE_CARD_PENALTY.sub(penalty, text)
