"""Request and response bodies of the API, declared once as pydantic models.

APIFlask validates requests against these models and builds the OpenAPI document from them,
so the document cannot drift from what the service accepts. ``RuleSet``, the rule object, is
built from ``solver.rules.RULE_KEYS``: a new preset, rule value or rule key shows up here without
a second list.
An answer's fields are declared in its model too (``AnalyzeResult`` for ``Analysis.to_json``):
the answer models allow undeclared fields, and tests/test_api_app.py checks none is left out.

Request models are strict (no type coercion, no unknown fields): a typo such as ``"plya"`` is
an error naming the field rather than a silently ignored key.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from solver.rules import PRESETS, RULE_KEYS, VALUE_LIMIT, whole_value
from solver.rules import RuleKey as KeyOfRules  # (RuleKey here is the catalogue's model)
from solver.sampling import SEED_LIMIT

SeatName = Literal["N", "E", "S", "W"]
if TYPE_CHECKING:  # a Literal built at run time is opaque to type checkers
    PresetName = str
else:
    PresetName = Literal[tuple(PRESETS)]


def _spelled(options: tuple[str, ...]) -> BeforeValidator:
    """An option in any case and with spaces around, as ``Rules.parse`` reads it."""
    by_key = {o.lower(): o for o in options}
    return BeforeValidator(lambda v: by_key.get(v.strip().lower(), v) if isinstance(v, str) else v)


# in requests as the command line and the positions of /analyses take them: seats and rule
# choices in either case, 2.0 for 2 (``Rules.parse``)
SeatInput = Annotated[SeatName, _spelled(("N", "E", "S", "W"))]
PresetInput = Annotated[PresetName, _spelled(tuple(PRESETS))]
# (the bounds before the validator: after it, pydantic writes them into the schema as `ge` and
# `le`, which are no JSON Schema keywords, and the document allowed any integer)
RuleValue = Annotated[int, Field(ge=-VALUE_LIMIT, le=VALUE_LIMIT), BeforeValidator(whole_value)]

# 2.0 for 2 in a count or a seed too: JSON Schema's integer is any number with no fraction
# (the document's readers send it so), and a JSON writer may write whole numbers so; up to 2**53,
# where every integer is a float, so that no seed is silently another
_WHOLE = BeforeValidator(lambda v: int(v) if isinstance(v, float) and v.is_integer()
                         and abs(v) <= 2 ** 53 else v)

EXAMPLE_DEAL = "N:KQT2.8653.A7.K32 A.KJT.9654.AQ876 9743.74.QJ32.J95 J865.AQ92.KT8.T4"
EXAMPLE_PLAY = ("C2 C6 C5 CT DT D7 D9 DQ CJ C4 CK CQ C3 C8 C9 H9 S4 S8 SQ SA HK H7 HA H8 S5 SK "
                "C7 S7 H5 HT H4 H2 CA D3 S6 H6 HJ S9 HQ H3")

# Tags of the two shapes ``rules`` may take; chosen so they never clash with a rule key,
# and stripped from error locations (see ``api.problems``).
RULES_AS_PRESET = "preset-name"
RULES_AS_OBJECT = "rule-object"


def _rule_field(key: KeyOfRules) -> Any:
    """A rule key's type in ``RuleSet``: its choices in either case, a card value's range."""
    described = Field(description=key.meaning)
    if key.choices is not None:
        return Annotated[Literal[key.choices], _spelled(key.choices), described]
    if key.json_type == "object":   # (values, the one object)
        return Annotated[dict[str, RuleValue], Field(description=key.meaning,
                                                     examples=[{"H": 1, "SQ": 13, "DJ": -10}])]
    return Annotated[{"boolean": bool, "integer": RuleValue}[key.json_type], described]


if TYPE_CHECKING:  # a TypedDict built at run time is opaque to type checkers
    RuleSet = dict[str, Any]
else:
    # every key optional, missing keys come from ``preset``; strict, so that an unknown key is
    # refused naming it
    RuleSet = TypedDict("RuleSet", {key.name: _rule_field(key) for key in RULE_KEYS}, total=False)
    RuleSet.__doc__ = "A rule set (SPEC §2): every key optional, missing keys come from ``preset``."
    RuleSet.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)


def _rules_shape(value: Any) -> str:
    return RULES_AS_OBJECT if isinstance(value, dict) else RULES_AS_PRESET


RulesSpec = Annotated[
    Union[Annotated[PresetInput, Tag(RULES_AS_PRESET)], Annotated[RuleSet, Tag(RULES_AS_OBJECT)]],
    Discriminator(_rules_shape),
    Field(description="a preset name, or a rule object (SPEC §2); standard when omitted",
          examples=["omnibus", {"preset": "standard", "moon": "subtract"}]),
]


class PositionRequest(BaseModel):
    """A position: a deal, the cards played so far, the rules and (with a free lead) the leader."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY, "rules": "standard"}]})

    deal: str = Field(max_length=256, description="PBN deal: first seat, then the four hands "
                      "clockwise, each spades.hearts.diamonds.clubs; one hand may be '-'",
                      examples=[EXAMPLE_DEAL])
    play: Optional[str] = Field(None, max_length=1024, description="cards played so far, in "
                                "order, separated by spaces; none when omitted",
                                examples=[EXAMPLE_PLAY])
    rules: Optional[RulesSpec] = None
    leader: Optional[SeatInput] = Field(None, description="seat leading trick 1; needed with a "
                                       "free first lead (or a deal without clubs)")


class AnalyzeRequest(PositionRequest):
    """A position, and optionally the one seat to answer for (as ``hearts-dd analyze --player``)
    and the seat to give an optimal line for (``--line``)."""

    player: Optional[SeatInput] = Field(None, description="answer only for this seat, with its cards' "
                                       "values when it (or its partner) is to move, else no "
                                       "`moves`; every seat when omitted")
    line: Optional[SeatInput] = Field(None, description="also an optimal line to the end of the "
                                     "hand for this seat (it plays to lower its score, the others "
                                     "to raise it), as `line` in the answer")


class SamplesRequest(PositionRequest):
    """A position, or a seat's view of one (its hand and the play), and the seat whose view
    the sampled deals keep."""

    # (a hand's example as a request's: with the position's, it is `hand` and `deal` at once)
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY, "rules": "standard"},
        {"hand": "KQ97.Q9.AK54.J75", "seat": "S"}]})

    # (optional here alone: a position's other fields are read as everywhere else)
    deal: Optional[str] = Field(None, max_length=256,  # type: ignore[assignment]
                                description="PBN deal, as for `/analyze`; or give `hand` "
                                "instead", examples=[EXAMPLE_DEAL])
    hand: Optional[str] = Field(None, max_length=256, description="instead of `deal`: the 13 "
                                "cards `seat` was dealt (those it has played too), as card "
                                "names or a PBN hand, for a player that sees only its own cards "
                                "and the play; `seat` is then required")
    leader: Optional[SeatInput] = Field(None, description="seat leading trick 1: with `deal`, "
                                       "needed with a free first lead (or a deal without "
                                       "clubs); with `hand`, only while `seat` has not played "
                                       "to trick 1 (its own card there shows who led), with a "
                                       "free first lead or once another seat led the 2 of clubs")
    seat: Optional[SeatInput] = Field(None, description="the seat that cannot tell the deals "
                                     "apart (its hand is kept); the player to move when omitted "
                                     "(with `deal`)")
    count: Annotated[int, Field(ge=1, le=1000), _WHOLE] = Field(20, description="how many deals")
    seed: Optional[Annotated[int, Field(ge=0, lt=SEED_LIMIT), _WHOLE]] = Field(
        None, description="makes the draw repeatable (without it, one is drawn and given in "
        "the answer)")
    known: Optional[dict[str, str]] = Field(None, description="cards the seat knows another "
                                            "was dealt (those it passed, say), by seat: "
                                            "`{\"E\": \"SA HK HJ\"}`",
                                            examples=[{"E": "SA HK HJ"}])


class SampledPosition(BaseModel):
    deal: str
    play: str
    rules: RuleSet
    leader: SeatName


class SamplesResult(BaseModel):
    seat: SeatName
    seed: int = Field(description="the request's `seed`, or the one drawn for a request without "
                      "one: sent again, it gives the same deals")
    positions: list[SampledPosition] = Field(description="the deals, each a position as "
                                             "`/analyses` takes them")


class AnalysesRequest(BaseModel):
    """Many positions at once, each read and answered on its own (as the lines of
    ``hearts-dd analyze --input``)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [{"positions": [{"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY, "id": 1},
                                    {"deal": EXAMPLE_DEAL, "play": EXAMPLE_PLAY + " SJ",
                                     "player": "E", "id": 2}]}]})

    positions: list[Any] = Field(min_length=1, description="the positions, each an object with "
                                 "the fields of an analyze request (`deal`, `play`, `rules`, "
                                 "`leader`, `player`) and an optional `id` (any JSON value, "
                                 "handed back); a position that cannot be read is answered "
                                 "with its own `error`, and the others still are")
    rules: Optional[RulesSpec] = Field(None, description="rules of the positions without their own")
    player: Optional[SeatInput] = Field(None, description="the one seat to answer for, for the "
                                       "positions without their own `player`")
    share: Optional[float] = Field(None, ge=0, lt=1, description="the part of the compute "
                                   "budget shared out evenly first (0 to below 1): each position "
                                   "gets its part of it, and those it did not settle are answered "
                                   "in order with the rest, so a position that is easy for its "
                                   "part is reached behind hard ones; the first ones then have "
                                   "only the rest. 0 or null: in order, the budget to the first "
                                   "ones. The service answers one position at a time")


class PlayerValue(BaseModel):
    model_config = ConfigDict(extra="allow")

    guarantee: int = Field(description="the lowest final score the seat can make sure of")
    moon_possible: bool = Field(description="the seat can make sure of taking every point card")


class MoveValue(BaseModel):
    model_config = ConfigDict(extra="allow")

    card: str
    guarantee: int = Field(description="the mover's guarantee after playing this card")
    moon_possible: bool
    best: bool = Field(description="no legal card has a lower guarantee")


class Line(BaseModel):
    """An optimal line for one seat, to the end of the hand."""

    model_config = ConfigDict(populate_by_name=True)

    for_: SeatName = Field(alias="for", description="the seat the line is optimal for")
    cards: list[str] = Field(description="the cards in order of play, each as seat:card "
                             "(\"E:C3\")", examples=[["E:C3", "S:CK", "W:D7", "N:D9"]])


class AnalyzeResult(BaseModel):
    """The same object as ``hearts-dd analyze --json`` (SPEC §4)."""

    model_config = ConfigDict(extra="allow")

    deal: str
    play: str
    rules: RuleSet
    leader: SeatName = Field(description="the leader of trick 1: with deal, play and rules, "
                             "the position again")
    to_move: Optional[SeatName] = Field(description="null when the hand is over")
    trick: Optional[int] = Field(description="number of the trick in progress, null when over")
    points_taken: dict[SeatName, int] = Field(description="each seat's card values and trick "
                                              "points taken so far, before any moon (its side's, "
                                              "with partnerships)")
    players: dict[SeatName, PlayerValue]
    moves: list[MoveValue] = Field(description="every legal card of the player to move (empty when "
                                   "`player` names another seat)")
    nodes: int
    seconds: float
    line: Optional[Line] = Field(None, description="only when the request asks for a `line`")


class PositionAnswered(AnalyzeResult):
    """A position answered: the analyze object, with its place and id."""

    index: int = Field(description="0-based place of the position in `positions`")
    id: Any = Field(None, description="the position's `id`, when it has one")
    error: None = None


class PositionFailed(BaseModel):
    """A position not answered: why."""

    index: int = Field(description="0-based place of the position in `positions`")
    id: Any = Field(None, description="the position's `id`, when it has one")
    error: str = Field(description="one line naming the position and what is wrong with it, or "
                       "that the request's compute budget ran out before it was answered")


class AnalysesResult(BaseModel):
    answers: list[Union[PositionAnswered, PositionFailed]] = Field(
        description="one a position, in order")


class MoonStep(BaseModel):
    index: int = Field(description="0-based position of the card in the play")
    trick: int
    seat: SeatName
    card: str
    moon_possible: dict[SeatName, bool] = Field(description="after this card: who can still "
                                                "make sure of taking every point card")


class MoonLoss(BaseModel):
    index: int
    trick: int
    seat: SeatName = Field(description="who played the card")
    card: str


class MoonReport(BaseModel):
    """Moon feasibility at the start of play and after every card of the recorded play."""

    deal: str
    play: str
    rules: RuleSet
    start: dict[SeatName, bool] = Field(description="moon_possible of every seat before the first card")
    timeline: list[MoonStep]
    lost: dict[SeatName, Optional[MoonLoss]] = Field(
        description="per seat, the card after which a moon it could force went out of reach "
                    "for good; null if it never was forceable, or still is at the end of the play")


class RuleKey(BaseModel):
    description: str
    type: Literal["string", "boolean", "integer", "object"]
    choices: Optional[list[Any]] = None
    standard: Any = Field(description="the value under the standard preset")


class PresetInfo(BaseModel):
    description: str
    rules: RuleSet = Field(description="every setting of the preset; values lists every non-zero card")


class RulesCatalogue(BaseModel):
    presets: dict[str, PresetInfo]
    keys: dict[str, RuleKey]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    check: str = Field(description="the position solved to check the engine")
    seconds: float


class AnnotateQuery(BaseModel):
    """Options of ``POST /annotate``; the PBN text is the request body."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["jsonl", "pbn", "csv", "text"] = Field(
        "jsonl", description="JSON Lines (SPEC §6), the PBN text back with annotation tags, CSV, "
        "or the readable report of `hearts-dd annotate --format text`")
    rules: Optional[PresetInput] = Field(None, description="preset for records without a "
                                        "[HeartsRules] tag (default standard); other rule sets go "
                                        "in the records' own [HeartsRules] tags, as JSON")


class FieldProblem(BaseModel):
    field: str = Field(description="dotted path of the field in the request, e.g. rules.moon")
    problem: str


class Problem(BaseModel):
    """RFC 9457 problem details; ``errors`` lists the field problems of a request (the first
    20; ``detail`` counts the rest)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    errors: Optional[list[FieldProblem]] = None
