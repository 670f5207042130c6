"""Rule sets: the presets ``no-mercy`` and ``classic`` and every option of RULES.md §3, §5.2, §6.

Options keep RULES.md's names, values and defaults. :func:`make_rules` rejects an unknown
preset, option name or value with a :class:`RuleSetError` that lists the valid ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from nomercy.core.deck import CLASSIC108_COUNTS, NM168_COUNTS, validate_counts
from nomercy.core.errors import RuleSetError

__all__ = [
    "CLASSIC",
    "CLASSIC_RULE_IDS",
    "NO_MERCY",
    "OPTIONS",
    "PRESETS",
    "ChainColourSource",
    "ChallengeSuccessTurn",
    "ClassicDrawnCardPlay",
    "ClassicScoring",
    "DealerRule",
    "DeckTable",
    "DeckVariant",
    "DiscardAllMode",
    "EliminatedCards",
    "ExhaustionFallback",
    "KnockedOutDrawCard",
    "LastCardEffect",
    "MercyAbsorb",
    "MercyTiming",
    "NoPlayableAction",
    "OptionSpec",
    "ReshuffleTiming",
    "RouletteActiveColour",
    "RouletteChooser",
    "RouletteExhaustion",
    "RouletteInStack",
    "RouletteMercy",
    "RuleFacts",
    "RuleSet",
    "SevenSwapTargets",
    "SkipEveryoneExtraTurn",
    "StackDeflection",
    "StackThreshold",
    "StartCardHandling",
    "TwoPlayerBasis",
    "UnoWindow",
    "VoluntaryDraw",
    "WildColourTiming",
    "Wrd4TwoPlayerInStack",
    "ZeroPassScope",
    "make_rules",
    "parse_option_value",
]

NO_MERCY = "no-mercy"
CLASSIC = "classic"
PRESETS: tuple[str, ...] = (NO_MERCY, CLASSIC)

# The values each choice option accepts, in one place: the RuleSet field is annotated with the
# Literal and its OptionSpec takes its values from the same Literal (``get_args``), so the type
# checker and make_rules accept exactly the same strings (tests/test_rules_options.py checks).
DeckVariant = Literal["nm168", "custom"]
"""deck_variant (A35)."""
DeckTable = Literal["classic108", "custom"]
"""deck (CL-1)."""
DealerRule = Literal["random_then_rotate", "winner_deals", "highest_card"]
"""dealer_rule (A38)."""
StartCardHandling = Literal["bury", "return_and_reshuffle", "return_to_bottom"]
"""start_card_handling (A01)."""
NoPlayableAction = Literal["draw_until_playable", "draw_one_may_play", "draw_one_pass"]
"""no_playable_action (A02)."""
ClassicDrawnCardPlay = Literal["optional", "forced"]
"""classic_drawn_card_play (C03)."""
VoluntaryDraw = Literal[
    "off", "draw_until_playable", "draw_one_may_pass", "draw_one_may_play_only_drawn"
]
"""voluntary_draw (A03)."""
StackThreshold = Literal["last_card", "running_total"]
"""stack_threshold (A04)."""
StackDeflection = Literal["none", "skip_reverse_deflect"]
"""stack_deflection (A07)."""
Wrd4TwoPlayerInStack = Literal["opponent", "self"]
"""wrd4_two_player_in_stack (A28)."""
TwoPlayerBasis = Literal["active", "initial"]
"""two_player_basis (A29)."""
DiscardAllMode = Literal["bury_no_effects", "choose_top_and_fire", "optional_subset"]
"""discard_all_mode (A09)."""
SkipEveryoneExtraTurn = Literal["full_turn"]
"""skip_everyone_extra_turn (A37)."""
WildColourTiming = Literal["on_play", "on_resolution"]
"""wild_colour_timing (A18)."""
ChainColourSource = Literal["top_card", "last_wild_named"]
"""chain_colour_source (A18)."""
RouletteChooser = Literal["victim", "player"]
"""roulette_chooser (A20)."""
RouletteActiveColour = Literal["named_colour", "player_names"]
"""roulette_active_colour (A21)."""
RouletteMercy = Literal["after_reveal", "per_card"]
"""roulette_mercy (NM-30)."""
RouletteInStack = Literal["none"]
"""roulette_in_stack (A23)."""
RouletteExhaustion = Literal["stop_keep_revealed"]
"""roulette_exhaustion (A22)."""
SevenSwapTargets = Literal["active_only"]
"""seven_swap_targets (A25)."""
ZeroPassScope = Literal["active_only"]
"""zero_pass_scope (A26)."""
MercyTiming = Literal["immediate", "end_of_action", "end_of_turn"]
"""mercy_timing (A14)."""
MercyAbsorb = Literal["stop_at_threshold", "draw_full_then_knock_out"]
"""mercy_absorb (A15)."""
KnockedOutDrawCard = Literal["stands", "cancelled"]
"""knocked_out_draw_card (A40)."""
EliminatedCards = Literal[
    "set_aside_until_reshuffle", "bottom_of_discard", "shuffle_into_draw_pile"
]
"""eliminated_cards (A27)."""
ReshuffleTiming = Literal["lazy", "eager"]
"""reshuffle_timing (A13)."""
ExhaustionFallback = Literal["end_sequence", "raise"]
"""exhaustion_fallback (A13)."""
LastCardEffect = Literal["win_immediately", "resolve_effects", "apply_draw_penalty"]
"""last_card_effect (A16)."""
UnoWindow = Literal["until_next_turn_start"]
"""uno_window (A19)."""
ChallengeSuccessTurn = Literal["challenger_plays", "challenger_skipped"]
"""challenge_success_turn (C01)."""
ClassicScoring = Literal["winner_collects", "lowest_wins"]
"""classic_scoring (C06)."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its name, rule id, per-preset default and allowed values."""

    name: str
    rule: str
    help: str
    defaults: dict[str, Any]
    values: tuple[Any, ...] | None = None  # None: an integer (>= minimum) or a mapping
    minimum: int = 0
    kind: str = "choice"  # "choice", "bool", "int", "counts"

    @property
    def presets(self) -> tuple[str, ...]:
        """The presets this option belongs to."""
        return tuple(self.defaults)

    def describe_values(self) -> str:
        """The valid values as text, for errors and ``nomercy rules``."""
        if self.kind == "int":
            return f"an integer >= {self.minimum}"
        if self.kind == "counts":
            return "a mapping of card code to number of copies"
        assert self.values is not None
        return ", ".join(_show(v) for v in self.values)


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _choice(name: str, rule: str, help: str, values: Any, **defaults: Any) -> OptionSpec:
    """A choice option whose values are those of the ``Literal`` type ``values``."""
    return OptionSpec(name, rule, help, _presets(defaults), get_args(values))


def _bool(name: str, rule: str, help: str, **defaults: Any) -> OptionSpec:
    return OptionSpec(name, rule, help, _presets(defaults), (False, True), kind="bool")


def _int(name: str, rule: str, help: str, minimum: int, **defaults: Any) -> OptionSpec:
    return OptionSpec(name, rule, help, _presets(defaults), None, minimum, "int")


def _presets(defaults: dict[str, Any]) -> dict[str, Any]:
    return {{"nm": NO_MERCY, "cl": CLASSIC}[key]: value for key, value in defaults.items()}


#: Every option, in RULES.md §6 order. ``nm``/``cl`` give the default per preset.
OPTIONS: tuple[OptionSpec, ...] = (
    _choice(
        "deck_variant",
        "A35",
        "Which deck table to use (custom: give deck_counts)",
        DeckVariant,
        nm="nm168",
    ),
    _choice(
        "deck",
        "CL-1",
        "Which deck table to use (custom: give deck_counts)",
        DeckTable,
        cl="classic108",
    ),
    OptionSpec(
        "deck_counts",
        "A35",
        "A custom deck: card code -> copies (implies custom deck)",
        {NO_MERCY: None, CLASSIC: None},
        kind="counts",
    ),
    _int("min_players", "NM-1", "Fewest players", 2, nm=2, cl=2),
    _int(
        "max_players", "A30", "Most players (No Mercy: above 6 only with a warning)", 2, nm=6, cl=10
    ),
    _int("hand_size", "NM-2", "Cards dealt to each player", 1, nm=7, cl=7),
    _choice(
        "dealer_rule",
        "A38",
        "Who deals: random then rotate, the last winner, or a high-card draw",
        DealerRule,
        nm="random_then_rotate",
        cl="highest_card",
    ),
    _choice(
        "start_card_handling",
        "A01",
        "Opening action/wild cards: bury, or return to the deck",
        StartCardHandling,
        nm="bury",
    ),
    _bool("start_card_effects", "CL-3", "Apply the classic start-card effects", cl=True),
    _choice(
        "no_playable_action",
        "A02",
        "What a player with no playable card does",
        NoPlayableAction,
        nm="draw_until_playable",
        cl="draw_one_may_play",
    ),
    _bool(
        "drawn_card_must_be_played",
        "A02",
        "After drawing until playable, the drawn card must be played",
        nm=True,
    ),
    _choice(
        "classic_drawn_card_play",
        "C03",
        "Must a playable drawn card be played",
        ClassicDrawnCardPlay,
        cl="optional",
    ),
    OptionSpec(
        "voluntary_draw",
        "A03",
        "May a player with a playable card draw instead",
        {NO_MERCY: "off", CLASSIC: "draw_one_may_play_only_drawn"},
        get_args(VoluntaryDraw),
    ),
    _choice(
        "stack_threshold",
        "A04",
        "A stacked card must reach the last card's value or the total",
        StackThreshold,
        nm="last_card",
    ),
    _bool(
        "stack_requires_match", "A05", "A stacked card must also match colour or symbol", nm=False
    ),
    _bool("stack_mandatory", "A06", "A player who can stack must stack", nm=False),
    _choice(
        "stack_deflection",
        "A07",
        "Skip and Reverse may pass a pending penalty on",
        StackDeflection,
        nm="none",
    ),
    _bool(
        "plus4_symbols_shared",
        "A11",
        "A coloured +4 and a Wild Reverse +4 match as symbols",
        nm=False,
    ),
    _choice(
        "wrd4_two_player_in_stack",
        "A28",
        "With 2 players, a Wild Reverse +4 played into a stack targets its player or the opponent",
        Wrd4TwoPlayerInStack,
        nm="opponent",
    ),
    _choice(
        "two_player_basis",
        "A29",
        "2-player rules count active players or the initial players",
        TwoPlayerBasis,
        nm="active",
    ),
    _choice(
        "discard_all_mode",
        "A09",
        "Discard All: bury all, choose a firing top card, or a subset",
        DiscardAllMode,
        nm="bury_no_effects",
    ),
    _bool(
        "discard_all_symbol_match", "A08", "A Discard All may be played on a Discard All", nm=True
    ),
    _choice(
        "skip_everyone_extra_turn",
        "A37",
        "Skip Everyone gives a full normal turn",
        SkipEveryoneExtraTurn,
        nm="full_turn",
    ),
    _choice(
        "wild_colour_timing",
        "A18",
        "A wild's colour is named when played or when its stack resolves",
        WildColourTiming,
        nm="on_play",
    ),
    _choice(
        "chain_colour_source",
        "A18",
        "After a stack: the top card's colour, or the colour the last wild in it named (S4)",
        ChainColourSource,
        nm="top_card",
    ),
    _bool(
        "wild_draw_restriction",
        "A34",
        "Wild draw cards only without a card of the active colour",
        nm=False,
    ),
    _choice(
        "roulette_chooser",
        "A20",
        "Who names the Colour Roulette's colour",
        RouletteChooser,
        nm="victim",
    ),
    _choice(
        "roulette_active_colour",
        "A21",
        "The colour after a Roulette: the named one or the player's",
        RouletteActiveColour,
        nm="named_colour",
    ),
    _choice(
        "roulette_mercy",
        "NM-30",
        "Mercy during a Roulette: once the revealed cards join the hand (seeds) or per card",
        RouletteMercy,
        nm="after_reveal",
    ),
    _choice(
        "roulette_in_stack", "A23", "A Roulette never joins a stack", RouletteInStack, nm="none"
    ),
    _choice(
        "roulette_exhaustion",
        "A22",
        "A Roulette with nothing left to reveal stops",
        RouletteExhaustion,
        nm="stop_keep_revealed",
    ),
    OptionSpec(
        "seven_swap_mandatory",
        "A25",
        "The 7-swap is mandatory",
        {NO_MERCY: True},
        (True,),
        kind="bool",
    ),
    _choice(
        "seven_swap_targets",
        "A25",
        "7-swap targets are active players",
        SevenSwapTargets,
        nm="active_only",
    ),
    _choice(
        "zero_pass_scope",
        "A26",
        "Only active players take part in a 0-pass",
        ZeroPassScope,
        nm="active_only",
    ),
    _bool("mercy_enabled", "NM-33", "Knock out a player whose hand reaches the threshold", nm=True),
    _int("mercy_threshold", "NM-33", "Hand size that knocks a player out (>=)", 2, nm=25),
    _choice(
        "mercy_timing",
        "A14",
        "When the Mercy rule is checked",
        MercyTiming,
        nm="immediate",
    ),
    _choice(
        "mercy_absorb",
        "A15",
        "A knock-out while absorbing stops the draw or draws all first",
        MercyAbsorb,
        nm="stop_at_threshold",
    ),
    _choice(
        "knocked_out_draw_card",
        "A40",
        "A Draw Card whose player a deferred Mercy check knocks out: its penalty stands or "
        "is cancelled",
        KnockedOutDrawCard,
        nm="stands",
    ),
    _choice(
        "eliminated_cards",
        "A27",
        "Where a knocked-out hand goes",
        EliminatedCards,
        nm="set_aside_until_reshuffle",
    ),
    _choice(
        "reshuffle_timing",
        "A13",
        "Reshuffle when a card is needed or as soon as the pile empties",
        ReshuffleTiming,
        nm="lazy",
    ),
    _choice(
        "exhaustion_fallback",
        "A13",
        "Nothing left to draw: end the draw sequence or raise",
        ExhaustionFallback,
        nm="end_sequence",
    ),
    OptionSpec(
        "last_card_effect",
        "A16",
        "What a special card does when it is the last card",
        {NO_MERCY: "win_immediately", CLASSIC: "apply_draw_penalty"},
        get_args(LastCardEffect),
    ),
    _int("uno_penalty_cards", "A31", "Cards drawn when caught not calling UNO", 0, nm=2, cl=2),
    _choice(
        "uno_window",
        "A19",
        "A missed UNO can be caught until the next turn starts",
        UnoWindow,
        nm="until_next_turn_start",
    ),
    _bool(
        "uno_on_received_single_card",
        "A19",
        "A player handed a 1-card hand by a swap or pass must call UNO",
        nm=True,
    ),
    _bool(
        "scoring_enabled",
        "NM-39",
        "Play a match of hands to the target instead of one hand",
        nm=False,
        cl=False,
    ),
    _int("score_target", "NM-41", "Points that win the match", 1, nm=1000, cl=500),
    _int(
        "knockout_bonus", "NM-40", "Points to the hand's winner per knocked-out player", 0, nm=250
    ),
    _bool("wd4_restriction", "CL-4", "A Wild +4 only without a card of the active colour", cl=True),
    _bool("wd4_challenge", "CL-8", "A Wild +4 may be challenged (bluffs are legal plays)", cl=True),
    _choice(
        "challenge_success_turn",
        "C01",
        "After a successful challenge the challenger plays",
        ChallengeSuccessTurn,
        cl="challenger_plays",
    ),
    _bool("challenge_on_winning_card", "C08", "A winning Wild +4 may be challenged", cl=False),
    _bool("two_player_rules", "CL-12", "Classic 2-player rules (Reverse acts as Skip)", cl=True),
    _bool("classic_stacking", "C04", "House rule: stack draw cards", cl=False),
    _bool("classic_seven_zero", "C04", "House rule: 7 swaps hands, 0 passes hands", cl=False),
    _bool("classic_draw_until_playable", "C04", "House rule: draw until playable", cl=False),
    _bool("classic_jump_in", "C04", "House rule: play an identical card out of turn", cl=False),
    _choice(
        "classic_scoring",
        "C06",
        "Winner collects points, or lowest running total wins",
        ClassicScoring,
        cl="winner_collects",
    ),
)

_SPECS = {spec.name: spec for spec in OPTIONS}

#: The classic rule (RULES.md §5) behind a No Mercy rule id that a shared text cites (event
#: texts, the coach's reasons): the deal, drawing, action cards, UNO, reshuffles, and the
#: house rules of C04 (stacking, 7-0). The one map from No Mercy ids to classic ones. A
#: classic draw-until-playable (a C04 house rule) is cited as C04 by the engine itself, so
#: NM-9 here is classic's own drawing rule.
CLASSIC_RULE_IDS: dict[str, str] = {
    "NM-2": "CL-2",
    "NM-9": "CL-5",
    "NM-14": "CL-6",
    "NM-16": "C04",
    "NM-17": "CL-6",
    "NM-18": "C04",
    "NM-29": "C04",
    "NM-31": "C04",
    "NM-35": "CL-11",
    "NM-37": "CL-9",
    "A13": "CL-11",
    "A17": "C07",
}


@dataclass(frozen=True, slots=True)
class RuleFacts:
    """The facts the engine, search, bots, advice, the coach and the encoders derive from a
    rule set, worked out once (:attr:`RuleSet.facts`) so that each exists in one place.

    >>> from nomercy import make_rules
    >>> f = make_rules("classic").facts
    >>> f.seven_zero, f.can_stack, f.mercy_limit, f.draw_proves_gap
    (False, False, 0, False)
    >>> make_rules("no-mercy").facts.stack_floor(6, 4)
    4
    """

    #: 7 swaps and 0 passes hands (NM-29, NM-31; classic only with C04 ``classic_seven_zero``).
    seven_zero: bool
    #: The Mercy limit (NM-33): a hand of this many cards is knocked out; 0 when off.
    mercy_limit: int
    #: A14: the Mercy rule is checked once an action or turn is done, not at each card.
    mercy_deferred: bool
    #: A pending penalty may be stacked (NM-18; classic only with C04 ``classic_stacking``).
    can_stack: bool
    #: A04 ``running_total``: a stacked card must reach the running total, not the last value.
    stack_on_total: bool
    #: Some wild draw cards may not be played whenever (A34 ``wild_draw_restriction``; classic
    #: CL-4 ``wd4_restriction`` without the CL-8 challenge), so a draw says nothing of wilds.
    wild_draw_restricted: bool
    #: A draw on a player's turn proves it held no card of the active colour (and no wild
    #: unless :attr:`wild_draw_restricted`): only without a voluntary draw (A03 ``off``: a
    #: player who can play must, NM-8, NM-9, CL-5) and when a playable drawn card is not kept
    #: silently (A02 ``draw_one_pass``). See :mod:`nomercy.core.gaps`.
    draw_proves_gap: bool

    @classmethod
    def of(cls, rules: RuleSet) -> RuleFacts:
        """Derive the facts of ``rules`` (:attr:`RuleSet.facts` holds them, once)."""
        classic = rules.is_classic
        return cls(
            seven_zero=not classic or rules.classic_seven_zero,
            mercy_limit=rules.mercy_threshold if rules.mercy_enabled else 0,
            mercy_deferred=rules.mercy_enabled and rules.mercy_timing != "immediate",
            can_stack=not classic or rules.classic_stacking,
            stack_on_total=rules.stack_threshold == "running_total",
            wild_draw_restricted=(
                (classic and rules.wd4_restriction and not rules.wd4_challenge)
                or (not classic and rules.wild_draw_restriction)
            ),
            draw_proves_gap=(
                rules.voluntary_draw == "off" and rules.no_playable_action != "draw_one_pass"
            ),
        )

    def stack_floor(self, total: int, last: int) -> int:
        """NM-18 / A04: the smallest draw value that may be stacked on a penalty of ``total``
        cards whose last card drew ``last``: the last value, or under ``running_total`` the
        total."""
        return total if self.stack_on_total else last


_PRESET_CACHE: dict[str, RuleSet] = {}  # presets without options, built once


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A preset plus every option value. Build one with :func:`make_rules`.

    Every field is named as in RULES.md §6; options that do not belong to the preset keep a
    neutral value and are never read by the engine for that preset.
    """

    preset: str = NO_MERCY
    deck_variant: DeckVariant = "nm168"
    deck: DeckTable = "classic108"
    deck_counts: dict[str, int] | None = None
    min_players: int = 2
    max_players: int = 6
    hand_size: int = 7
    dealer_rule: DealerRule = "random_then_rotate"
    start_card_handling: StartCardHandling = "bury"
    start_card_effects: bool = False
    no_playable_action: NoPlayableAction = "draw_until_playable"
    drawn_card_must_be_played: bool = True
    classic_drawn_card_play: ClassicDrawnCardPlay = "optional"
    voluntary_draw: VoluntaryDraw = "off"
    stack_threshold: StackThreshold = "last_card"
    stack_requires_match: bool = False
    stack_mandatory: bool = False
    stack_deflection: StackDeflection = "none"
    plus4_symbols_shared: bool = False
    wrd4_two_player_in_stack: Wrd4TwoPlayerInStack = "opponent"
    two_player_basis: TwoPlayerBasis = "active"
    discard_all_mode: DiscardAllMode = "bury_no_effects"
    discard_all_symbol_match: bool = True
    skip_everyone_extra_turn: SkipEveryoneExtraTurn = "full_turn"
    wild_colour_timing: WildColourTiming = "on_play"
    chain_colour_source: ChainColourSource = "top_card"
    wild_draw_restriction: bool = False
    roulette_chooser: RouletteChooser = "victim"
    roulette_active_colour: RouletteActiveColour = "named_colour"
    roulette_mercy: RouletteMercy = "after_reveal"
    roulette_in_stack: RouletteInStack = "none"
    roulette_exhaustion: RouletteExhaustion = "stop_keep_revealed"
    seven_swap_mandatory: bool = True
    seven_swap_targets: SevenSwapTargets = "active_only"
    zero_pass_scope: ZeroPassScope = "active_only"
    mercy_enabled: bool = True
    mercy_threshold: int = 25
    mercy_timing: MercyTiming = "immediate"
    mercy_absorb: MercyAbsorb = "stop_at_threshold"
    knocked_out_draw_card: KnockedOutDrawCard = "stands"
    eliminated_cards: EliminatedCards = "set_aside_until_reshuffle"
    reshuffle_timing: ReshuffleTiming = "lazy"
    exhaustion_fallback: ExhaustionFallback = "end_sequence"
    last_card_effect: LastCardEffect = "win_immediately"
    uno_penalty_cards: int = 2
    uno_window: UnoWindow = "until_next_turn_start"
    uno_on_received_single_card: bool = True
    scoring_enabled: bool = False
    score_target: int = 1000
    knockout_bonus: int = 250
    wd4_restriction: bool = False
    wd4_challenge: bool = False
    challenge_success_turn: ChallengeSuccessTurn = "challenger_plays"
    challenge_on_winning_card: bool = False
    two_player_rules: bool = True
    classic_stacking: bool = False
    classic_seven_zero: bool = False
    classic_draw_until_playable: bool = False
    classic_jump_in: bool = False
    classic_scoring: ClassicScoring = "winner_collects"
    #: The options given explicitly (non-defaults included), as passed in; kept for records.
    given: dict[str, Any] = field(default_factory=dict, compare=False)
    #: What the options imply (7-0 in force, the Mercy limit, the stack floor, what a draw
    #: proves), derived once here and read everywhere instead of restating the options.
    facts: RuleFacts = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "facts", RuleFacts.of(self))

    @property
    def is_classic(self) -> bool:
        """Whether this is the classic preset."""
        return self.preset == CLASSIC

    def deck_table(self) -> dict[str, int]:
        """The deck composition in force (card code -> copies)."""
        if self.deck_counts is not None:
            return dict(self.deck_counts)
        return dict(CLASSIC108_COUNTS if self.is_classic else NM168_COUNTS)

    def options(self) -> dict[str, Any]:
        """Every option of this preset with its value (defaults included)."""
        return {
            spec.name: getattr(self, spec.name) for spec in OPTIONS if self.preset in spec.presets
        }

    def to_json(self) -> dict[str, Any]:
        """The preset and the explicitly given options (JSON-serialisable)."""
        return {"preset": self.preset, "options": dict(self.given)}


def _neutral_classic() -> dict[str, Any]:
    # Classic fields that have a No Mercy counterpart but a different meaning get the classic
    # reading; No Mercy-only rules are switched off for classic (no Mercy rule, CL-7 no stacking).
    return {"mercy_enabled": False, "knockout_bonus": 0, "start_card_handling": "bury"}


def make_rules(
    rules: str | Mapping[str, Any] | RuleSet = NO_MERCY, options: Mapping[str, Any] | None = None
) -> RuleSet:
    """Build a :class:`RuleSet` from a preset name (or ``{"preset", "options"}``) and options.

    Raises:
        RuleSetError: an unknown preset, option name or value (the message lists valid ones).
    """
    if isinstance(rules, str) and not options and rules in _PRESET_CACHE:
        return _PRESET_CACHE[rules]
    if isinstance(rules, RuleSet):
        if not options:
            return rules
        return make_rules(rules.preset, {**rules.given, **options})
    merged: dict[str, Any] = {}
    if isinstance(rules, Mapping):
        unknown = set(rules) - {"preset", "options"}
        if unknown:
            raise RuleSetError(
                f"unknown rules keys {sorted(unknown)}: expected 'preset', 'options'"
            )
        merged.update(rules.get("options") or {})
        preset = rules.get("preset", NO_MERCY)
    else:
        preset = rules
    merged.update(options or {})
    if preset not in PRESETS:
        raise RuleSetError(f"unknown preset {preset!r}: valid presets are {', '.join(PRESETS)}")
    values: dict[str, Any] = {"preset": preset}
    if preset == CLASSIC:
        values.update(_neutral_classic())
    for spec in OPTIONS:
        if preset in spec.presets:
            values[spec.name] = spec.defaults[preset]
    valid = [spec.name for spec in OPTIONS if preset in spec.presets]
    for name, value in merged.items():
        found = _SPECS.get(name)
        if found is None or preset not in found.presets:
            where = "" if found is None else f" (it belongs to preset {found.presets[0]!r})"
            raise RuleSetError(
                f"unknown option {name!r} for preset {preset!r}{where}; valid options: "
                + ", ".join(valid)
            )
        values[name] = _check_value(found, value)
    _check_combination(preset, values)
    if preset == CLASSIC:
        # Classic house rules map onto the shared machinery (C04).
        if values["classic_draw_until_playable"]:
            values["no_playable_action"] = "draw_until_playable"
        values["drawn_card_must_be_played"] = values["classic_drawn_card_play"] == "forced"
    values["given"] = dict(merged)
    ruleset = RuleSet(**values)
    if not merged and isinstance(rules, str):
        _PRESET_CACHE[preset] = ruleset
    return ruleset


def _check_combination(preset: str, values: dict[str, Any]) -> None:
    """Check the options that constrain each other; mark a deck with counts as custom.

    Raises:
        RuleSetError: a custom deck without counts, or an impossible player range.
    """
    if values.get("deck_counts") is not None:
        values["deck_variant" if preset == NO_MERCY else "deck"] = "custom"
    elif values.get("deck_variant") == "custom" or values.get("deck") == "custom":
        raise RuleSetError("a custom deck needs deck_counts (card code -> copies)")
    if values["min_players"] > values["max_players"]:
        raise RuleSetError("min_players must not exceed max_players")
    if values["max_players"] > 10:  # A30 (No Mercy), CL-1 (classic): 2-10 players
        rule = "A30" if preset == NO_MERCY else "CL-1"
        raise RuleSetError(f"max_players is at most 10 ({rule})")


def _check_value(spec: OptionSpec, value: Any) -> Any:
    def bad() -> RuleSetError:
        return RuleSetError(
            f"invalid value {value!r} for option {spec.name!r} ({spec.rule}); "
            f"valid values: {spec.describe_values()}"
        )

    if spec.kind == "counts":
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise bad()
        return validate_counts(value)
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < spec.minimum:
            raise bad()
        return value
    if spec.kind == "bool":
        if not isinstance(value, bool) or value not in (spec.values or ()):
            raise bad()
        return value
    assert spec.values is not None
    if value not in spec.values or not isinstance(value, str):
        raise bad()
    return value


def parse_option_value(name: str, text: str) -> Any:
    """Convert ``NAME=VALUE`` command-line text to the option's type.

    Raises:
        RuleSetError: unknown option name or a value of the wrong type.
    """
    spec = _SPECS.get(name)
    if spec is None:
        raise RuleSetError(
            f"unknown option {name!r}; valid options: " + ", ".join(s.name for s in OPTIONS)
        )
    if spec.kind == "bool":
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off") and not (spec.values and "off" in spec.values):
            return False
        raise RuleSetError(
            f"invalid value {text!r} for option {name!r}; valid values: true, false "
            "(also yes/no, on/off, 1/0)"
        )
    if spec.kind == "int":
        try:
            return int(text)
        except ValueError:
            raise RuleSetError(
                f"invalid value {text!r} for option {name!r}; valid values: "
                f"{spec.describe_values()}"
            ) from None
    if spec.kind == "counts":
        import json

        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise RuleSetError(
                f"option {name!r} takes a JSON object of card code -> copies"
            ) from None
    return text
