"""Types of the Cython engine's Python-facing API (``_search.pyx``), for type checkers;
``tests/test_typing.py`` checks them against the compiled module (mypy's stubtest)."""
from typing import Any, Callable, Sequence

from typing_extensions import disjoint_base

class SearchAborted(Exception):
    low: int | None
    high: int | None
    who: str | None
    question: int | None
    def __init__(self, message: str = ..., low: int | None = ..., high: int | None = ...,
                 who: str | None = ..., question: int | None = ...) -> None: ...

def watch_ctrl_c() -> None: ...
def watch_signal(signum: int) -> None: ...
def interrupts() -> int: ...

_Claim = tuple[bool, int]

@disjoint_base
class Engine:
    nodes: int
    trick_nodes: int
    passes: list[tuple[int, int, int]]
    narrow_from: int
    narrow_cards: int
    sweep_from: int
    sweep_cards: int
    etc_from: int
    helper_nodes: int
    joins: int
    helper_answers: int
    moon_cuts: int
    helper_from: int
    spawn_nodes: int
    helper_all_nodes: int
    moon_nodes: int
    proof_cut: bool
    helper_pairs_from: int
    def __new__(cls, values: Sequence[int], moon_mode: int, trick_points: int,
                partnership: bool, hearts_break: int, first_trick_points: bool, queen: int,
                table_bytes: int) -> Engine: ...
    def share_table(self, owner: Engine) -> None: ...
    def set_helper(self, helper: Engine | None) -> None: ...
    def set_lender(self, lender: Any) -> None: ...
    def join_pass(self, helper: Engine) -> bool: ...
    def set_moon_total(self, total: int) -> None: ...
    def set_cancelled(self, cancelled: bool) -> None: ...
    def clear(self) -> None: ...
    def touch(self) -> None: ...
    def value(self, hands: Sequence[int], trick: Sequence[int], leader: int, broken: bool,
              first_trick: bool, forced_lead: int, moon: int, target: int, guess: int = ...,
              node_limit: int = ..., seconds: float = ...,
              report: Callable[[int | None, int | None], None] | None = ...,
              interrupts: int = ...) -> int: ...
    def probe(self, hands: Sequence[int], trick: Sequence[int], leader: int, broken: bool,
              first_trick: bool, forced_lead: int, moon: int, target: int, beta: int,
              node_limit: int = ..., seconds: float = ..., interrupts: int = ...) -> int: ...
    def moon(self, hands: Sequence[int], trick: Sequence[int], leader: int, broken: bool,
             first_trick: bool, forced_lead: int, moon: int, target: int, node_limit: int = ...,
             seconds: float = ..., interrupts: int = ...) -> bool: ...
    def move_groups(self, hands: Sequence[int], trick: Sequence[int], leader: int,
                    broken: bool, first_trick: bool, forced_lead: int) -> list[tuple[int, int]]: ...
    def claims(self, hands: Sequence[int], leader: int, broken: bool, moon: int,
               target: int, first_trick: bool = False, forced_lead: int = -1) -> dict[str, Any]: ...
    def trick_lost_claim(self, hands: Sequence[int], leader: int, trick: Sequence[int], moon: int,
                         target: int) -> tuple[int, int] | None: ...
    def shot_lost_claim(self, hands: Sequence[int], leader: int, trick: Sequence[int],
                        target: int) -> int | None: ...
    def trick_claim(self, hands: Sequence[int], leader: int, trick: Sequence[int],
                    broken: bool = ..., mover: bool = ...) -> tuple[int, int]: ...
    def hashes(self, hands: Sequence[int], leader: int, moon: int = ..., target: int = ...,
               broken: bool = ..., first_trick: bool = ..., forced_lead: int = ...,
               kind: int = ...) -> tuple[int, int]: ...
