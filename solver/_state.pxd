# The search state shared by the engine modules: rule constants (Game) and the mutable
# position being searched (State). Card sets are 64-bit masks, index = suit * 16 + rank.
from libc.stdint cimport uint64_t, int64_t

cdef extern from *:
    """
    static inline int hdd_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int hdd_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int hdd_msb(unsigned long long x) { return 63 - __builtin_clzll(x); }
    """
    int popcount "hdd_popcount"(uint64_t x) noexcept nogil
    int ctz "hdd_ctz"(uint64_t x) noexcept nogil
    int msb "hdd_msb"(uint64_t x) noexcept nogil

cdef extern from *:
    """
    static inline int hdd_load(const int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void hdd_set(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int atomic_load "hdd_load"(const int* p) noexcept nogil
    void atomic_set "hdd_set"(int* p, int v) noexcept nogil

cdef enum:
    SUIT_LANE = 0x1FFF
    HEARTS = 1
    # MOON_* and BREAK_*: the codes of analysis._MOON_MODES and _BREAK (test_analysis checks)
    MOON_ADD = 0
    MOON_SUBTRACT = 1
    MOON_NONE = 2
    BREAK_HEARTS = 0
    BREAK_QUEEN = 1
    BREAK_NONE = 2
    MOON_DEAD = 7          # State.moon: 0 nobody took points, 1 + side: only that side, 7 several
    MAX_SPECIAL = 8        # specials per suit that still fit a relative key
    INF = 30000            # fits the table's int16 bounds; rules.SCORE_LIMIT keeps scores below
    LEADER_DEP = 1 << 15   # in a reliance mask (no card has this bit): the result at a trick
                           # boundary depends on who leads there (see _search._finish_trick)

ctypedef struct Game:
    int values[64]
    uint64_t point_mask          # value > 0
    uint64_t valued_mask         # value != 0
    uint64_t queen               # the card that also breaks hearts under BREAK_QUEEN
    int moon_mode
    int moon_total               # M for the deal being searched
    int trick_points
    int tricks_wanted            # no card has a value and trick_points < 0: every player
                                 # wants tricks for its own side (bridge play)
    int partnership
    int hearts_break
    int first_trick_points
    # Transposition keys (see _ttable): a suit is keyed by the owners of its remaining cards,
    # top down ("relative ranks"), plus where its special cards sit in that order: those whose
    # value differs from the suit's common value, and the queen when it breaks hearts. A suit
    # with too many specials is keyed by absolute cards.
    int suit_absolute[4]
    int nspecial[4]
    int special[4][13]           # card indices of the specials, per suit
    uint64_t keyed_exactly       # the specials, and every card of an absolute suit
    uint64_t same_value[64]      # per card: the cards of its suit of the same value, which it may
                                 # stand for in a run (the queen that breaks hearts: itself only)

ctypedef struct State:
    uint64_t hand[4]
    uint64_t on_table            # cards of the current trick
    int trick[4]                 # cards of the current trick in play order
    int ntrick                   # cards in the current trick
    int win                      # while ntrick > 0: place in ``trick`` of the card winning it,
                                 # kept up to date as cards are played (_search._play)
    int leader                   # leader of the current trick
    int broken                   # hearts may be led
    int first_trick              # 1 while trick 1 is being played
    int forced_lead              # card that must lead trick 1, or -1
    int moon                     # see MOON_DEAD
    int target                   # the side being scored (seat, or seat & 1 with partnership)
    int side[4]                  # side of each seat
    int cards_left               # cards still in hands
    int hand_pos                 # sum of the positive values still in hands
    int hand_neg                 # sum of the negative values still in hands
    int hist[64]                 # history heuristic: cut-offs made by each card
    int killer[14][4]            # bridge play: last lead that made a cut-off, by tricks
                                 # left and seat (-1: none yet)
    int64_t nodes
    int64_t trick_nodes          # the nodes at trick boundaries: what DDS counts as its nodes
    int64_t node_limit           # 0: none
    double deadline              # 0: none; CLOCK_MONOTONIC seconds
    int interrupts               # Ctrl-Cs counted when the question began (_spent)
    int* cancelled               # the engine's flag: Solver.cancel() stops the search (_spent)
    int aborted
    int narrow                   # > 0: a narrowed search, the others trying at most this many
                                 # cards a node (see Engine.value)
    int narrow_moon              # the same for the side seeking a moon in moon_search
    int sweep_from               # cards left from which the others, in a full search, first
    int sweep_cards              # sweep their cards with searches narrowed to sweep_cards
                                 # cards a node (see _search._sweep)
    int helper                   # in a helper thread's search (see _search.Helper): the cards
                                 # left from which it takes cards in another order; else 0
    int* stop                    # set when the other thread's search of the pass is over
    void* helped                 # the main search's: its Helper, started after spawn_at nodes
    int64_t spawn_at
    int64_t helper_all_at        # a helper's: nodes after which it reorders the target's cards too
    int etc_from                 # cards left from which the target's side, fourth to a trick,
                                 # looks up its cards' trick ends first (Engine.etc_from)
    int probe_only               # search() at a trick boundary returns only what the
    int probe_miss               # whole-position cache, static bounds and table settle, and
                                 # sets probe_miss where they do not (the lazy ETC in search)
    int helper_pairs             # a helper's: cards left from which it swaps the others' two
                                 # cards of a trick (Engine.helper_pairs_from)
