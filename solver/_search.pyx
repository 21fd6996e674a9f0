# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Search driver: fail-soft alpha-beta over the target's score to go, a table at trick
boundaries, an MTD(f) loop of null-window passes (narrowed ones first, see Engine.value), and
an AND/OR search for moon shots.

Values are "to go": the target's points from the searched position on, with the moon's effect
folded in at the end, so a value depends only on what is left to play (and who has taken points
so far), and the table can share it between positions reached by different histories."""
from libc.stdint cimport uint64_t, int64_t
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from solver._state cimport (Game, State, SUIT_LANE, HEARTS, BREAK_QUEEN, MOON_DEAD, MAX_SPECIAL,
                            INF, LEADER_DEP, popcount, msb, atomic_load, atomic_set)
from solver._movegen cimport (legal_mask, group_moves, order_moves, winning_index,
                              find_winning_index)
from solver._bounds cimport (Outcomes, outcome_bounds, moon_constants, bound_lo, bound_hi,
                             terminal_value, target_cannot_win, target_can_duck, quick_tricks,
                             trick_lost, shot_lost,
                             lead_side_max, trick_then_cash, others_cannot_shoot,
                             cannot_shoot, leads_a_point,
                             OUT_SELF, OUT_OTHER)
from solver._ttable cimport (Table, Key, tt_init, tt_free, tt_clear, tt_touch, tt_probe,
                             tt_store, tt_share, tt_follow, make_key, exact_hash, ex_probe,
                             ex_store, KIND_SCORE, KIND_MOON, KIND_HELPED_MOON, NARROWED)


cdef enum:
    ROOT_MOON_NODES = 3000000     # first budget of the root's "can the others shoot" search
                                  # (Engine.moon_nodes; see Engine.value), doubled each time the
                                  # passes have spent as much again while it is unsettled
    ROOT_MOON_NARROW_NODES = 1000000  # of which a narrowed search may take this much first
    NARROW_CARDS = 3              # cards the others try a node in a narrowed pass
    NARROW_FROM = 40              # cards left from which value() tries narrowed passes: in
                                  # smaller positions they cost more than they save
    SWEEP_FROM = 40               # see _sweep (from 36 cards left: 7 % more nodes on typical
                                  # deals)
    SWEEP_CARDS = 2               # cards the others try a node in a sweep (3: 8 % more nodes)
    ETC_FROM = 24                 # see Engine.etc_from (from 20 or 28 cards: about the same
                                  # nodes; at every size, 2.5 % more instructions)
    HELPER_FROM = 40              # see Engine.helper_from (from 48 cards: 35 % slower; from 32
                                  # or at every node: the same)
    HELPER_ALL_NODES = 2000000    # see Engine.helper_all_nodes
    HELPER_PAIRS_FROM = 16        # see Engine.helper_pairs_from
    SCORE_PASS = -2               # Helper.blocker of a score search's pass
    SPAWN_NODES = 1000            # see Engine.spawn_nodes: a thread costs tens of microseconds,
                                  # but passes of positions 8-9 tricks from the end are too short
                                  # for 100 000 (benchmarks/README: 3-14 % faster there, full
                                  # deals the same)


cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t* thread, const void* attr, void* (*start)(void*) noexcept nogil,
                       void* arg)
    int pthread_join(pthread_t thread, void** result)


ctypedef struct Helper:
    # a second thread searching the same pass in another order (see Engine.set_helper), whose
    # table entries the main search then finds; its answer ends the pass if it comes first
    const Game* g
    State* s
    Table* tt
    int alpha
    int beta
    int blocker                  # SCORE_PASS: a pass of search(); else moon_search's blocker
    int stop                     # the main search is over
    int done                     # the helper's is: its answer (value) stands for the pass
    int value
    int started
    pthread_t thread


class SearchAborted(Exception):
    """The node or time budget ran out before the search finished. ``low`` and ``high`` bound
    the answer as far as the passes that did finish proved it (None: no bound yet); ``who``
    names the seats whose guarantee was asked ("N", "N/S"), where the solver knows them;
    ``question``, in a call of many questions, is the index of the one cut short."""

    def __init__(self, message="search budget exhausted", low=None, high=None, who=None,
                 question=None):
        super().__init__(message)
        self.low = low
        self.high = high
        self.who = who
        self.question = question


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# Ctrl-C. Python only acts on a signal between bytecodes, which a search without the GIL
# never reaches: a long solve ignored Ctrl-C until it ended, minutes later. A C handler put in
# front of Python's (same flags, so that blocking calls are still interrupted) notes SIGINT for
# the searches, which stop at their next check as when their time is up, and passes it on to
# Python's, which raises KeyboardInterrupt once the search has returned. A handler that Python
# code installs later replaces this one: its searches then run to the end as before.
# ``watch_signal`` does the same for another signal whose Python handler is installed.
cdef extern from *:
    """
    #include <signal.h>
    static volatile sig_atomic_t hdd_interrupts = 0;
    static struct sigaction hdd_python_action[NSIG];
    static void hdd_on_signal(int sig) {
        hdd_interrupts++;
        if (hdd_python_action[sig].sa_handler != SIG_DFL
                && hdd_python_action[sig].sa_handler != SIG_IGN)
            hdd_python_action[sig].sa_handler(sig);
    }
    static void hdd_watch(int sig) {
        struct sigaction now;
        if (sig <= 0 || sig >= NSIG || sigaction(sig, NULL, &now) != 0
                || now.sa_handler == hdd_on_signal
                || now.sa_handler == SIG_IGN || now.sa_handler == SIG_DFL
                || (now.sa_flags & SA_SIGINFO))
            return;  /* ignored, left to the system, or not a plain handler: not ours to wrap */
        hdd_python_action[sig] = now;
        now.sa_handler = hdd_on_signal;
        sigaction(sig, &now, NULL);
    }
    /* a flag another thread may set while the search runs: read afresh at every check */
    static inline int hdd_flag(const int* flag) { return flag && *(const volatile int*)flag; }
    """
    int hdd_interrupts
    void hdd_watch(int sig)
    int hdd_flag(const int* flag) nogil
    enum: SIGINT

from _signal import default_int_handler as _python_ctrl_c, getsignal as _getsignal

hdd_watch(SIGINT)


def watch_ctrl_c():
    """Hook Ctrl-C again if Python's own handler has been set back since (by code that swapped
    in its own and then restored Python's, say), which unhooked the searches'. Cheap enough for
    the start of every question: the raw getsignal, where signal.getsignal's conversion to an
    enum took 2.8 µs, an eighth of a question two tricks from the end."""
    if _getsignal(SIGINT) is _python_ctrl_c:
        hdd_watch(SIGINT)


def watch_signal(int signum):
    """Let ``signum``, whose Python handler is installed, stop every search at once as Ctrl-C
    does (then the handler runs)."""
    hdd_watch(signum)


def interrupts():
    """Ctrl-Cs (and watched signals) so far. A question passes the count at its start to the
    engine, whose searches stop at the next one: a count, not a flag that each question clears,
    so that one thread starting a question cannot erase the Ctrl-C another's search has yet to
    notice."""
    return hdd_interrupts


cdef str _why_aborted(const State* s):
    """What stopped a search short: Solver.cancel(), a signal (from a thread other than the
    main one, which gets KeyboardInterrupt) or the limits."""
    if hdd_flag(s.cancelled):
        return "search cancelled"
    return "search interrupted" if hdd_interrupts != s.interrupts else "search budget exhausted"


cdef inline bint _spent(const State* s, long long limit) noexcept nogil:
    """Whether a search stopped short has run out of ``limit`` (0: none) or of its time, or
    was interrupted (Ctrl-C) or cancelled."""
    return ((limit != 0 and s.nodes >= limit) or (s.deadline > 0 and _now() > s.deadline)
            or hdd_interrupts != s.interrupts or hdd_flag(s.cancelled))


cdef inline bint _tick(State* s) noexcept nogil:
    """Count a node; True when the budget is spent or the other thread's search of the pass
    is over. Starts the helper once the search has shown it is not a small one."""
    s.nodes += 1
    if (s.nodes & 1023) == 0:
        if _spent(s, s.node_limit) or (s.stop != NULL and atomic_load(s.stop)):
            s.aborted = 1
        if s.helped != NULL and s.nodes >= s.spawn_at:
            _spawn(<Helper*>s.helped)
            s.helped = NULL
    return s.aborted


cdef void* _help(void* arg) noexcept nogil:
    cdef Helper* h = <Helper*>arg
    cdef uint64_t rel
    cdef int v
    if h.blocker == SCORE_PASS:
        v = search(h.g, h.s, h.tt, h.alpha, h.beta, &rel)
    else:
        v = moon_search(h.g, h.s, h.tt, h.blocker, &rel)
    if not h.s.aborted:
        h.value = v
        atomic_set(&h.done, 1)
    return NULL


cdef void _spawn(Helper* h) noexcept nogil:
    h.started = pthread_create(&h.thread, NULL, _help, h) == 0


ctypedef struct Undo:
    int leader, moon, broken, first_trick, forced_lead
    int trick[4]
    uint64_t on_table


cdef inline int _finish_trick(const Game* g, State* s, Undo* u, int* winner_side,
                              uint64_t* win, bint* side_by_rank) noexcept nogil:
    """Close a full trick: winner leads, moon and hearts state move on. Returns the target's
    points for the trick.

    ``win`` gets the winning card when it won by rank (it beat another card of the suit led; a
    card that won alone wins in any position of the same lengths), else 0. ``side_by_rank``
    tells whether ranks decided more than who leads next: which side took the trick (the
    target's side and another both followed suit), or, while a moon is live, which seat took
    its point cards. When they did not, the winning card matters only if the result after
    the trick depends on who leads (see _with_winner)."""
    cdef int wi = winning_index(s)
    cdef int wseat = (s.leader + wi) & 3
    cdef int ws = s.side[wseat]
    cdef int pts = 0, i, mine = 0, theirs = 0
    cdef uint64_t led = <uint64_t>SUIT_LANE << (16 * (s.trick[0] >> 4))
    win[0] = 0
    side_by_rank[0] = 0
    if popcount(s.on_table & led) > 1:
        win[0] = (<uint64_t>1) << s.trick[wi]
        if g.partnership:
            # the leader's side followed suit (its lead): both sides did when the other side's
            # second or fourth card did
            i = s.trick[0] >> 4
            mine = ((s.trick[1] >> 4) == i) | ((s.trick[3] >> 4) == i)
            theirs = 1
        else:
            for i in range(4):
                if (s.trick[i] >> 4) == (s.trick[0] >> 4):
                    if s.side[(s.leader + i) & 3] == s.target:
                        mine = 1
                    else:
                        theirs = 1
        side_by_rank[0] = (mine and theirs) or (s.moon != MOON_DEAD
                                                and (s.on_table & g.point_mask) != 0)
    u.leader = s.leader
    u.moon = s.moon
    u.broken = s.broken
    u.first_trick = s.first_trick
    u.forced_lead = s.forced_lead
    u.on_table = s.on_table
    for i in range(4):
        u.trick[i] = s.trick[i]
    if s.on_table & g.point_mask:
        if s.moon == 0:
            s.moon = ws + 1
        elif s.moon != ws + 1:
            s.moon = MOON_DEAD
    if (s.on_table >> (16 * HEARTS)) & SUIT_LANE:
        s.broken = 1
    elif g.hearts_break == BREAK_QUEEN and (s.on_table & g.queen):
        s.broken = 1
    s.leader = wseat
    s.ntrick = 0
    s.on_table = 0
    s.first_trick = 0
    s.forced_lead = -1
    winner_side[0] = ws
    if ws != s.target:
        return 0
    for i in range(4):
        pts += g.values[s.trick[i]]
    return pts + g.trick_points


cdef inline void _undo_trick(State* s, const Undo* u) noexcept nogil:
    cdef int i
    for i in range(4):
        s.trick[i] = u.trick[i]
    s.leader = u.leader
    s.moon = u.moon
    s.broken = u.broken
    s.first_trick = u.first_trick
    s.forced_lead = u.forced_lead
    s.on_table = u.on_table
    s.ntrick = 4


cdef inline void _play(const Game* g, State* s, int player, int c) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << c
    if g.values[c] > 0:
        s.hand_pos -= g.values[c]
    else:
        s.hand_neg -= g.values[c]
    s.hand[player] &= ~bit
    s.on_table |= bit
    if s.ntrick == 0:
        s.win = 0
    elif (c >> 4) == (s.trick[0] >> 4) and c > s.trick[s.win]:
        s.win = s.ntrick
    s.trick[s.ntrick] = c
    s.ntrick += 1
    s.cards_left -= 1


cdef inline void _unplay(const Game* g, State* s, int player, int c, int win) noexcept nogil:
    """Take back _play; ``win`` is s.win as it was before."""
    cdef uint64_t bit = (<uint64_t>1) << c
    if g.values[c] > 0:
        s.hand_pos += g.values[c]
    else:
        s.hand_neg += g.values[c]
    s.ntrick -= 1
    s.hand[player] |= bit
    s.on_table &= ~bit
    s.cards_left += 1
    s.win = win


cdef inline uint64_t _with_winner(uint64_t crel, uint64_t win, bint side_by_rank) noexcept nogil:
    """What a finished trick's result relies on, from what the position after it relied on:
    the winning card too when ranks decided the trick (``_finish_trick``) and either more than
    the next leader rode on them or the result after the trick depends on the leader."""
    if win and (side_by_rank or (crel & LEADER_DEP)):
        crel |= win
    return crel & ~(<uint64_t>LEADER_DEP)


cdef inline uint64_t _with_run(uint64_t crel, uint64_t run) noexcept nogil:
    """The cards a child relies on, widened for the cards its card stood for: the other cards
    of the played card's run are searched as the same move, so if the child relied on any
    card of the run, it relies on all of them."""
    if crel & run:
        crel |= run
    return crel


cdef inline int _same_child(const Game* g, int c, const int* done, const uint64_t* done_rel,
                            int ndone) noexcept nogil:
    """A searched sibling whose result also holds after ``c``, or -1. Playing c instead of a
    card d of the same suit and value changes only which of the two stays in hand. If d's
    child relied on no card of the suit at or below both (so neither won a trick by rank) and
    no exactly-keyed card sits between them, the two children agree on everything it relied
    on, so its bound holds for both. This merges equal cards that group_moves cannot (other
    hands' cards lie between them) when the line below does not care. As for a searched child,
    the caller widens the reliance by c's run (_with_run): c stands for its run, whose cards
    may reach up into those relied on, and are one move only while they stay adjacent."""
    cdef int j, d, lo, hi
    cdef uint64_t span
    for j in range(ndone):
        d = done[j]
        if (d >> 4) != (c >> 4) or g.values[d] != g.values[c]:
            continue
        lo = d if d < c else c
        hi = d + c - lo
        span = (((<uint64_t>2) << hi) - 1) & ~(((<uint64_t>1) << lo) - 1)
        if span & g.keyed_exactly:
            continue
        if done_rel[j] & (((<uint64_t>2) << hi) - 1) & (<uint64_t>SUIT_LANE << (16 * (c >> 4))):
            continue
        return j
    return -1


cdef inline void _history_pick(const State* s, int* moves, uint64_t* runs, int n,
                               int k) noexcept nogil:
    """Bring the card of moves[k:] with the most cut-offs so far to place k. A narrowed search
    tries only the first few cards: the last of them is best spent on what has refuted before,
    whatever the static order says (the others' narrowed passes then reach the value more
    often)."""
    cdef int i, b = k, c
    cdef uint64_t r
    for i in range(k + 1, n):
        if s.hist[moves[i]] > s.hist[moves[b]]:
            b = i
    c = moves[b]
    r = runs[b]
    for i in range(b, k, -1):
        moves[i] = moves[i - 1]
        runs[i] = runs[i - 1]
    moves[k] = c
    runs[k] = r


cdef inline bint _helper_reverses(const State* s, int n, bint others) noexcept nogil:
    """Whether a helper thread takes this node's cards after the first in reverse (_reverse):
    from s.helper cards left, at once for the others (in a moon search, the side that would
    stop the moon), for the target once the helper has run s.helper_all_at nodes."""
    return (s.helper and s.cards_left >= s.helper and n > 2
            and (others or s.nodes >= s.helper_all_at))


cdef inline void _reverse(int* moves, uint64_t* runs, int n) noexcept nogil:
    """Reverse the order of n moves. A helper keeps the first card and reverses the rest: where
    every card must be searched, it takes first those the main search comes to last, and
    where the first card fails to cut off, it tries the last-ordered ones early. (Reversing
    the others' cards alone did as well on most deals and 20 % worse on the slowest; reversing
    every card, the first too, 45 % worse, but for two cards of the others inside a trick: see
    Engine.helper_pairs_from.) The target's cards only once the helper has run
    HELPER_ALL_NODES: see Engine.helper_all_nodes."""
    cdef int i, c
    cdef uint64_t r
    for i in range(n // 2):
        c = moves[i]
        moves[i] = moves[n - 1 - i]
        moves[n - 1 - i] = c
        r = runs[i]
        runs[i] = runs[n - 1 - i]
        runs[n - 1 - i] = r


cdef inline void _store(Table* tt, const Key* key, uint64_t xh, uint64_t rel, int lo, int hi,
                        int best, int work) noexcept nogil:
    """A bound of a position at a trick boundary, into the table and the whole-position cache."""
    tt_store(tt, key, rel, lo, hi, best, work)
    ex_store(tt, xh, lo, hi, best, rel | LEADER_DEP, rel | LEADER_DEP)


cdef inline bint _settled(int lo, int hi, uint64_t rel_lo, uint64_t rel_hi, int alpha, int beta,
                          uint64_t* rel, int* v) noexcept nogil:
    """Whether the bounds ``lo``..``hi`` settle the window; if so ``v`` gets the value to
    return and ``rel`` what the bound that settles it relied on."""
    if lo >= beta:
        rel[0] = rel_lo
        v[0] = lo
    elif hi <= alpha:
        rel[0] = rel_hi
        v[0] = hi
    elif lo == hi:
        rel[0] = rel_lo | rel_hi
        v[0] = lo
    else:
        return False
    return True


cdef inline int _work(const State* s, int64_t start) noexcept nogil:
    """What a node's search since ``start`` cost, as its table entry's claim to stay: the bit
    length of its node count."""
    cdef int64_t w = s.nodes - start
    return msb(w) + 1 if w > 0 else 0


cdef inline void _store_proof(const Game* g, const State* s, Table* tt, int kind, uint64_t rel,
                              int lo, int hi, int best, int work) noexcept nogil:
    """A narrowed search's proof (``kind`` + NARROWED), stored for the full search too."""
    cdef Key key
    make_key(tt, g, s, kind, &key)
    _store(tt, &key, exact_hash(s, kind), rel, lo, hi, best, work)


cdef inline int _child(const Game* g, State* s, Table* tt, int player, int c, int alpha,
                       int beta, uint64_t* rel) noexcept nogil:
    """The value to go of the position after ``player`` plays ``c``, counted from before it."""
    cdef int w0 = s.win, v, delta, ws
    cdef Undo u
    cdef uint64_t mrel, win
    cdef bint side_by_rank
    _play(g, s, player, c)
    rel[0] = 0
    if s.ntrick == 4:
        delta = _finish_trick(g, s, &u, &ws, &win, &side_by_rank)
        v = delta + search(g, s, tt, alpha - delta, beta - delta, &mrel)
        rel[0] = _with_winner(mrel, win, side_by_rank)
        _undo_trick(s, &u)
    else:
        v = search(g, s, tt, alpha, beta, rel)
    _unplay(g, s, player, c, w0)
    return v


cdef inline int _looked_up(const Game* g, State* s, Table* tt, int player, int c, int alpha,
                           int beta, int* value, uint64_t* rel) noexcept nogil:
    """``c``'s trick end looked up only (the lazy ETC in search): 1 with its value and reliance
    where the whole-position cache, the static bounds or the table settle it, else 2."""
    cdef int miss
    s.probe_only = 1
    s.probe_miss = 0
    value[0] = _child(g, s, tt, player, c, alpha, beta, rel)
    miss = s.probe_miss
    s.probe_only = 0
    s.probe_miss = 0
    return 2 if miss else 1


cdef inline int _sweep(const Game* g, State* s, Table* tt, int player, const int* moves,
                       const uint64_t* runs, int n, int alpha, int beta, int* value,
                       uint64_t* rel) noexcept nogil:
    """The first of the others' cards whose search narrowed to ``s.sweep_cards`` cards a node
    of theirs reaches ``beta`` (a proof: with more cards they do no worse), or -1. Where the
    static order puts a wrong card first, a full search refutes it at length (every card of
    theirs tried below it) before coming to the card that works; the sweep finds that card
    for a fraction of the cost when a simple line follows it. Early in the deal only: on
    some hard deals (seed 4 E) it nearly halves the search; on typical ones it moves the node
    count by a few per cent either way."""
    cdef int i, v
    cdef uint64_t crel
    for i in range(n):
        s.narrow = s.sweep_cards
        v = _child(g, s, tt, player, moves[i], alpha, beta, &crel)
        s.narrow = 0
        if s.aborted:
            return -1
        if v >= beta:
            value[0] = v
            rel[0] = _with_run(crel, runs[i])
            return i
    return -1


cdef inline void _credit(State* s, int c) noexcept nogil:
    """Count a cut-off made by ``c`` for the history heuristic."""
    cdef int j
    s.hist[c] += s.cards_left
    if s.hist[c] > (1 << 30):
        # a long-lived engine's counts would overflow (ordering caps them far lower;
        # ageing them there cost bridge play 3 % more nodes)
        for j in range(64):
            s.hist[j] >>= 1


cdef int search(const Game* g, State* s, Table* tt, int alpha, int beta,
                uint64_t* rel) noexcept nogil:
    """Fail-soft alpha-beta: the target's side minimises the value to go, the others maximise.
    ``rel`` gets the cards whose ranks the returned bound relies on (see _ttable).

    With ``s.narrow`` the others try only their first few cards, so a value at or above beta
    is still a proof, but one below it is not a bound: the search then keeps its own table
    entries (kind + NARROWED) and copies only its lower bounds to the score search's."""
    cdef int moves[16]
    cdef int done[16]                # cards searched so far, their values and reliance
    cdef int done_v[16]
    cdef uint64_t done_rel[16]
    cdef uint64_t runs[16]
    cdef int ndone = 0, j
    cdef Key key
    cdef Outcomes o
    cdef int lo, hi, player, n, i, c, v, best, bestmove = -1, ttmove = -1, hi_other
    cdef int boundary = s.ntrick == 0
    cdef int alpha0, beta0, maximizing
    cdef uint64_t crel, nrel = 0, rel_lo, rel_hi, mrel, xh
    cdef int kind = KIND_SCORE + NARROWED if s.narrow else KIND_SCORE, searched = 0, work
    cdef int64_t start = s.nodes
    cdef int pst[16]
    cdef int pv[16]
    cdef uint64_t prel[16]
    cdef int etc = 0, k, found, ri
    rel[0] = 0
    if _tick(s):
        return 0
    if s.ntrick > 0 and g.tricks_wanted and g.partnership:
        # the side to play wins this trick for sure and cashes on (the same test for the
        # other side cost 12 % more instructions for 1 % fewer nodes)
        crel = 0
        player = (s.leader + s.ntrick) & 3
        i = popcount(s.hand[player])
        # the tricks that would settle the window: -t * n <= alpha, or -t * (i - n) >= beta
        j = -g.trick_points
        if s.side[player] == s.target:
            n = (-alpha + j - 1) // j if alpha < 0 else 1
        else:
            n = i + ((beta + j - 1) // j if beta >= 0 else -((-beta) // j))
        n = trick_then_cash(g, s, s.side[player], n, &crel) if n <= i else 0
        if n > 0:
            if s.side[player] == s.target:
                v = g.trick_points * n
                if v <= alpha:
                    rel[0] = crel
                    return v
            else:
                v = g.trick_points * (i - n)
                if v >= beta:
                    rel[0] = crel
                    return v
    elif s.ntrick > 0 and not g.tricks_wanted and trick_lost(g, s, alpha, &hi, &crel) \
            and hi <= alpha:
        # the rest of a trick the target's side has lost, whose points no longer matter (the
        # like lower bound, for a trick it must take, was too loose a fail-soft value: the
        # passes that climb to the value found less in the table)
        rel[0] = crel
        return hi
    if boundary:
        s.trick_nodes += 1
        if s.cards_left == 0:
            return terminal_value(g, s)
        xh = exact_hash(s, kind)
        if ex_probe(tt, xh, &lo, &hi, &ttmove, &rel_lo, &rel_hi) \
                and _settled(lo, hi, rel_lo, rel_hi, alpha, beta, rel, &v):
            return v
        outcome_bounds(g, s, &o, alpha, beta)
        lo = bound_lo(&o, -1)
        hi = bound_hi(&o, OUT_OTHER if o.other_blocked else -1)
        if o.cap < hi:
            hi = o.cap
        if lo >= beta:
            rel[0] = o.rel_lo
            return lo
        if hi <= alpha:
            rel[0] = o.rel_hi
            return hi
        make_key(tt, g, s, kind, &key)
        rel_lo = o.rel_lo
        rel_hi = o.rel_hi
        if tt_probe(tt, &key, &lo, &hi, &ttmove, &rel_lo, &rel_hi, alpha, beta):
            # the table is keyed by who leads
            rel_lo |= LEADER_DEP
            rel_hi |= LEADER_DEP
            if _settled(lo, hi, rel_lo, rel_hi, alpha, beta, rel, &v):
                ex_store(tt, xh, lo, hi, ttmove, rel_lo, rel_hi)
                return v
            if s.probe_only:
                s.probe_miss = 1
                return 0
        else:
            if s.probe_only:
                s.probe_miss = 1
                return 0
            # Whether the target can force its own moon settles the node when only that outcome
            # keeps the value below beta; the moon search answers it, usually quickly.
            if o.possible[OUT_SELF] and bound_lo(&o, OUT_SELF) >= beta:
                if moon_search(g, s, tt, -1, &mrel):
                    if o.hi[OUT_SELF] < hi:
                        hi = o.hi[OUT_SELF]
                        rel_hi = o.rel_hi | mrel
                else:
                    lo = bound_lo(&o, OUT_SELF)
                    rel_lo = o.rel_lo | mrel
            # Likewise another side's moon, when only that outcome keeps the value above alpha:
            # one search asks whether the others together can make one of them shoot.
            if o.possible[OUT_OTHER] and not o.other_blocked and lo < beta and hi > alpha:
                hi_other = bound_hi(&o, OUT_OTHER)
                if o.cap < hi_other:
                    hi_other = o.cap
                if hi_other <= alpha:
                    if moon_search(g, s, tt, s.target, &mrel):
                        if o.lo[OUT_OTHER] > lo:
                            lo = o.lo[OUT_OTHER]
                            rel_lo = o.rel_lo | mrel
                    elif hi_other < hi:
                        hi = hi_other
                        rel_hi = rel_hi | mrel
            if s.aborted:
                return 0
            if lo >= beta:
                rel[0] = rel_lo
                _store(tt, &key, xh, rel_lo, lo, INF, -1, _work(s, start))
                return lo
            if hi <= alpha:
                rel[0] = rel_hi
                _store(tt, &key, xh, rel_hi, -INF, hi, -1, _work(s, start))
                return hi
            if lo == hi:
                rel[0] = rel_lo | rel_hi
                _store(tt, &key, xh, rel[0], lo, hi, -1, _work(s, start))
                return lo
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
    alpha0 = alpha
    beta0 = beta
    player = (s.leader + s.ntrick) & 3
    maximizing = s.side[player] != s.target
    n = group_moves(g, s, legal_mask(g, s, player), moves, runs)
    order_moves(g, s, player, moves, runs, n, ttmove, maximizing ^ g.tricks_wanted)
    if maximizing and s.narrow and n > s.narrow:
        _history_pick(s, moves, runs, n, s.narrow - 1)
    elif _helper_reverses(s, n, maximizing):
        _reverse(moves + 1, runs + 1, n - 1)
    elif (s.helper and s.cards_left >= s.helper_pairs and n == 2 and maximizing
            and s.ntrick > 0 and not g.tricks_wanted):
        # where both of the others' cards must be searched (in the pass that proves the
        # target's value, most of a typical solve), the two threads take one each first
        _reverse(moves, runs, 2)
    best = -INF if maximizing else INF
    if (maximizing and not s.narrow and s.cards_left >= s.sweep_from and n > 1
            and not g.tricks_wanted):
        i = _sweep(g, s, tt, player, moves, runs, n, alpha, beta, &v, &crel)
        if s.aborted:
            return 0
        if i >= 0:
            best = v
            bestmove = moves[i]
            nrel = crel
            _credit(s, bestmove)
            n = 0  # a cut-off: the full search below has nothing left to do
    if (not maximizing and s.ntrick == 3 and n > 1 and s.cards_left >= s.etc_from
            and not s.narrow and not g.tricks_wanted):
        # a lazy enhanced transposition cut-off (ETC) for the target's side, fourth to the
        # trick: each card's trick-end position is first looked up (probe_only: the
        # whole-position cache, the static bounds, the table); where the first card's needs a
        # search, the other cards' are looked up before it is searched, and one already
        # settled at or below alpha is the cut-off. Looking up every card's at every such
        # node (rows on ETC in benchmarks/README) saved as many nodes for 9 % more
        # instructions; this pays for the look-ups only where a search would follow
        etc = 1
        for k in range(n):
            pst[k] = 0
    for i in range(n):
        c = moves[i]
        ri = i
        j = _same_child(g, c, done, done_rel, ndone)
        if j >= 0:
            v = done_v[j]
            crel = _with_run(done_rel[j], runs[i])
        else:
            if maximizing and s.narrow and searched == s.narrow:
                break
            searched += 1
            if etc:
                if pst[i] == 0:
                    pst[i] = _looked_up(g, s, tt, player, c, alpha, beta, &pv[i], &prel[i])
                    if s.aborted:
                        return 0
                if pst[i] == 1:
                    v = pv[i]
                    crel = prel[i]
                else:
                    found = -1
                    if i == 0:
                        for k in range(1, n):
                            pst[k] = _looked_up(g, s, tt, player, moves[k], alpha, beta, &pv[k],
                                                &prel[k])
                            if s.aborted:
                                return 0
                            if pst[k] == 1 and pv[k] <= alpha:
                                found = k
                                break
                    if found >= 0:
                        ri = found
                        c = moves[found]
                        v = pv[found]
                        crel = prel[found]
                    else:
                        v = _child(g, s, tt, player, c, alpha, beta, &crel)
            else:
                v = _child(g, s, tt, player, c, alpha, beta, &crel)
            if s.aborted:
                return 0
            crel = _with_run(crel, runs[ri])
            done[ndone] = c
            done_v[ndone] = v
            done_rel[ndone] = crel
            ndone += 1
        if maximizing:
            if v > best:
                best = v
                bestmove = c
                if v > alpha:
                    alpha = v
        else:
            if v < best:
                best = v
                bestmove = c
                if v < beta:
                    beta = v
        if alpha >= beta:
            # a cut-off rests on the card that made it alone
            _credit(s, c)
            if boundary and g.tricks_wanted and i > 0:
                # only a lead the order did not already put first (else the killer of a
                # sibling position gave way to the static order's choice, which needs none)
                s.killer[s.cards_left >> 2][player] = c
            nrel = crel
            break
        nrel |= crel
    if boundary:
        if g.tricks_wanted and ((best <= alpha0) if maximizing else (best >= beta0)):
            # bridge play: every card of the side to play failed, and the one that failed
            # least is no better a guess than the static order; keep the card that last made
            # a cut-off here (or none) for the next pass
            bestmove = -1
        work = _work(s, start)
        if best <= alpha0:
            _store(tt, &key, xh, nrel, -INF, best, bestmove, work)
        elif best >= beta0:
            _store(tt, &key, xh, nrel, best, INF, bestmove, work)
        else:
            _store(tt, &key, xh, nrel, best, best, bestmove, work)
        if s.narrow and best >= beta0:
            _store_proof(g, s, tt, KIND_SCORE, nrel, best, INF, bestmove, work)
        nrel |= LEADER_DEP
    rel[0] = nrel
    return best


cdef inline bint _moon_lost(const State* s, bint anyone) noexcept nogil:
    """The shot searched for can no longer happen: with ``anyone``, the target's side took a
    point or two sides did; else a side other than the target's took one."""
    if s.moon == 0:
        return 0
    if anyone:
        return s.moon == MOON_DEAD or s.moon == s.target + 1
    return s.moon != s.target + 1


cdef int moon_search(const Game* g, State* s, Table* tt, int blocker, uint64_t* rel) noexcept nogil:
    """1 when the target's side can make sure of taking every point card still out: against
    everyone else, or, with a ``blocker`` side (else -1), against that side alone, the others
    helping. With the blocker the target's own side, the question is whether the other sides,
    all together, can make one of them take every point card: the shooter need not be chosen
    in advance, and once one of them has taken a point the search goes on as that side's
    helped moon. ``rel`` as in search.

    With ``s.narrow_moon`` the side seeking the moon tries only its first few cards, so a "yes"
    is still a proof but a "no" is not: as in a narrowed score search, the entries are kept
    apart and only the "yes" answers copied to the moon search's own."""
    cdef int moves[16]
    cdef int done[16]
    cdef uint64_t done_rel[16]
    cdef uint64_t runs[16]
    cdef int ndone = 0, w0, j
    cdef Key key
    cdef Undo u
    cdef int player, n, i, c, r, ws, either, result, ttmove = -1, bestmove = -1, lo, hi, t, kind
    cdef int work
    cdef int boundary = s.ntrick == 0
    cdef bint anyone = blocker == s.target, side_by_rank
    cdef uint64_t crel, nrel = 0, mrel, rel_lo = 0, rel_hi = 0, win, xh
    cdef int64_t start = s.nodes
    rel[0] = 0
    if _tick(s):
        return 0
    if boundary:
        s.trick_nodes += 1
        if _moon_lost(s, anyone):
            return 0
        if anyone and s.moon != 0:
            t = s.target
            s.target = s.moon - 1
            r = moon_search(g, s, tt, blocker, rel)
            s.target = t
            return r
        if ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & g.point_mask) == 0:
            return s.moon == s.target + 1
        if not anyone and target_cannot_win(s, rel):
            return 0
        if ((s.side[s.leader] == blocker) if blocker >= 0
                else (s.side[s.leader] != s.target)) and leads_a_point(g, s, rel):
            return 0
        # a guard keeps a point card from every would-be shooter: with anyone, nobody has a
        # point yet, so from every other seat; else from the one shooter, kept by the blocker
        if anyone:
            if others_cannot_shoot(g, s, rel):
                return 0
        elif blocker >= 0 and cannot_shoot(g, s, blocker, s.target, rel):
            return 0
        kind = KIND_MOON if blocker < 0 else KIND_HELPED_MOON + blocker
        if s.narrow_moon:
            kind += NARROWED
        xh = exact_hash(s, kind)
        if ex_probe(tt, xh, &lo, &hi, &ttmove, &rel_lo, &rel_hi):
            rel[0] = rel_lo
            return lo
        make_key(tt, g, s, kind, &key)
        lo = -INF
        hi = INF
        # no window: the moon's entries are exact, so the first that matches answers
        if tt_probe(tt, &key, &lo, &hi, &ttmove, &rel_lo, &rel_hi, -INF, INF):
            rel[0] = rel_lo | LEADER_DEP
            ex_store(tt, xh, lo, lo, ttmove, rel[0], rel[0])
            return lo
    elif not anyone and shot_lost(g, s, rel):
        # settled before the trick's last cards are tried (E's guarantee, seeds 0-23: 12 %
        # fewer nodes by geometric mean; N's, seeds 0-39: 3 %)
        return 0
    player = (s.leader + s.ntrick) & 3
    either = s.side[player] != blocker if blocker >= 0 else s.side[player] == s.target
    n = group_moves(g, s, legal_mask(g, s, player), moves, runs)
    order_moves(g, s, player, moves, runs, n, ttmove, either ^ anyone)
    if _helper_reverses(s, n, not either):
        _reverse(moves + 1, runs + 1, n - 1)
    result = 0 if either else 1
    for i in range(n):
        c = moves[i]
        j = _same_child(g, c, done, done_rel, ndone)
        if j >= 0:
            # a sibling of the same result was not the answer
            nrel |= _with_run(done_rel[j], runs[i])
            continue
        if either and s.narrow_moon and ndone == s.narrow_moon:
            break
        w0 = s.win
        _play(g, s, player, c)
        crel = 0
        if s.ntrick == 4:
            _finish_trick(g, s, &u, &ws, &win, &side_by_rank)
            crel = win
            if not _moon_lost(s, anyone):
                r = moon_search(g, s, tt, blocker, &mrel)
                crel |= mrel & ~(<uint64_t>LEADER_DEP)
            else:
                r = 0
            _undo_trick(s, &u)
        else:
            r = moon_search(g, s, tt, blocker, &crel)
        _unplay(g, s, player, c, w0)
        if s.aborted:
            return 0
        crel = _with_run(crel, runs[i])
        done[ndone] = c
        done_rel[ndone] = crel
        ndone += 1
        if r == either:
            result = r
            bestmove = c
            nrel = crel
            break
        nrel |= crel
    if boundary:
        work = _work(s, start)
        _store(tt, &key, xh, nrel, result, result, bestmove, work)
        if s.narrow_moon and result:
            _store_proof(g, s, tt, kind - NARROWED, nrel, result, result, bestmove, work)
        nrel |= LEADER_DEP
    rel[0] = nrel
    return result


cdef class Engine:
    """A solver for one rule set: the rule constants and one transposition table, reused by
    every question asked (all seats, every card) while the rules and moon total stay the same."""

    cdef Game g
    cdef Table tt
    cdef State s
    cdef public long long nodes
    cdef public long long trick_nodes  # of the nodes, those at trick boundaries (DDS's count)
    cdef public list passes          # (window, value, nodes) of the last value() call's passes,
                                     # narrowed ones included
    cdef public int narrow_from      # cards left from which value() tries narrowed passes
                                     # (NARROW_FROM)
    cdef public int narrow_cards     # cards a node in narrowed searches (NARROW_CARDS); tests
                                     # lower both, so that brute force checks narrowed searches
                                     # that do leave cards out
    cdef public int sweep_from       # cards left from which the others' nodes sweep (_sweep;
    cdef public int sweep_cards      # SWEEP_FROM, SWEEP_CARDS); tests lower both
    cdef public int etc_from         # cards left from which the target, fourth to a trick, looks
                                     # up its other cards' trick ends when its first card's needs
                                     # a search (ETC_FROM; 99: never)
    cdef public long long helper_nodes  # nodes of the helper threads' searches
    cdef public long long joins      # helpers that joined a pass in progress (join_pass)
    cdef public long long helper_answers  # passes a helper finished before the main search
    cdef public long long moon_cuts  # passes value() cut short for the root's moon search
    cdef public int helper_from      # cards left from which a helper orders the cards its own
                                     # way (HELPER_FROM)
    cdef public long long spawn_nodes  # nodes a pass takes before its helper starts
    cdef public long long helper_all_nodes  # nodes after which a helper reorders the target's
                                     # cards too, not only the others' (HELPER_ALL_NODES): in
                                     # a short pass the target's first cards are nearly always
                                     # right and the helper does best to search the same next
                                     # card; a long pass is long because they are not
    cdef public long long moon_nodes  # first budget of the root's moon search (ROOT_MOON_NODES);
                                     # tests lower it, so that even small searches have passes
                                     # cut short for it (Engine.value)
    cdef int cancelled               # set_cancelled: its searches stop (State.cancelled)
    cdef public bint proof_cut       # 1: the full pass after a failed narrowed one may also be
                                     # cut short for the root's moon search (Engine.value);
                                     # 0, the default, lets it run: it is nearly always the
                                     # final proof, which a cut only delays
    cdef public int helper_pairs_from  # cards left from which a helper also swaps the others'
                                     # two cards of a trick (Hearts rules; HELPER_PAIRS_FROM:
                                     # typical deals 5 % faster; bridge play slower)
    cdef Engine _helper
    cdef object _lender              # see set_lender
    cdef Engine _joined              # a helper that joined the pass in progress (join_pass)
    cdef State hroot                 # the root of the pass (or root's moon search) in
                                     # progress, for its helper
    cdef int hbeta                   # and its window
    cdef int hblocker                # SCORE_PASS, or the moon search's blocker
    cdef int invited                 # 1 while a helper may join the pass in progress
    cdef Engine _owner               # the engine whose table this one shares, or None
    cdef tuple _rules                # the constructor's rule arguments: sharers must agree
    cdef Helper hctl

    def __cinit__(self, values, int moon_mode, int trick_points, bint partnership,
                  int hearts_break, bint first_trick_points, int queen, size_t table_bytes):
        cdef int i, suit, k, common, best_count, cnt, v
        self._rules = (tuple(values), moon_mode, trick_points, bool(partnership), hearts_break,
                       bool(first_trick_points), queen)
        self.narrow_from = NARROW_FROM
        self.narrow_cards = NARROW_CARDS
        self.sweep_from = SWEEP_FROM
        self.etc_from = ETC_FROM
        self.sweep_cards = SWEEP_CARDS
        if len(values) != 64:
            raise ValueError("values must have 64 entries")
        self.g.point_mask = 0
        self.g.valued_mask = 0
        for i in range(64):
            self.g.values[i] = values[i]
            if values[i] > 0:
                self.g.point_mask |= (<uint64_t>1) << i
            if values[i] != 0:
                self.g.valued_mask |= (<uint64_t>1) << i
        self.g.queen = (<uint64_t>1) << queen
        self.g.keyed_exactly = 0
        self.g.moon_mode = moon_mode
        self.g.moon_total = 0
        self.g.trick_points = trick_points
        self.g.tricks_wanted = self.g.valued_mask == 0 and trick_points < 0
        self.g.partnership = partnership
        self.g.hearts_break = hearts_break
        self.g.first_trick_points = first_trick_points
        for suit in range(4):
            # the commonest value of the suit is implied; the others are "special"
            common = 0
            best_count = -1
            for i in range(13):
                v = self.g.values[suit * 16 + i]
                cnt = 0
                for k in range(13):
                    if self.g.values[suit * 16 + k] == v:
                        cnt += 1
                if cnt > best_count:
                    best_count = cnt
                    common = v
            self.g.nspecial[suit] = 0
            for i in range(13):
                if self.g.values[suit * 16 + i] != common:
                    self.g.special[suit][self.g.nspecial[suit]] = suit * 16 + i
                    self.g.nspecial[suit] += 1
            if hearts_break == BREAK_QUEEN and queen >> 4 == suit and self.g.values[queen] == common:
                # the queen changes the state when played: it must keep its place like a special
                self.g.special[suit][self.g.nspecial[suit]] = queen
                self.g.nspecial[suit] += 1
            self.g.suit_absolute[suit] = self.g.nspecial[suit] > MAX_SPECIAL
            if self.g.suit_absolute[suit]:
                self.g.keyed_exactly |= <uint64_t>SUIT_LANE << (16 * suit)
            for i in range(self.g.nspecial[suit]):
                self.g.keyed_exactly |= (<uint64_t>1) << self.g.special[suit][i]
        for i in range(64):
            self.g.same_value[i] = 0
            for k in range(16 * (i >> 4), 16 * (i >> 4) + 13):
                if self.g.values[k] == self.g.values[i]:
                    self.g.same_value[i] |= (<uint64_t>1) << k
        if hearts_break == BREAK_QUEEN:
            # only the queen opens hearts: no other card stands for it, nor it for another
            for i in range(16 * (queen >> 4), 16 * (queen >> 4) + 13):
                self.g.same_value[i] &= ~self.g.queen
            self.g.same_value[queen] = self.g.queen
        if tt_init(&self.tt, table_bytes) != 0:
            raise MemoryError(f"cannot allocate a transposition table of {table_bytes} bytes")
        for suit in range(4):
            if self.g.tricks_wanted or (self.g.valued_mask >> (16 * suit)) & SUIT_LANE:
                self.tt.top_keyed[suit] = 1
        memset(self.s.killer, -1, sizeof(self.s.killer))  # no killer lead yet (0 is S2)
        self.nodes = 0
        self.trick_nodes = 0
        self.helper_nodes = 0
        self.helper_answers = 0
        self.moon_cuts = 0
        self.helper_from = HELPER_FROM
        self.spawn_nodes = SPAWN_NODES
        self.helper_all_nodes = HELPER_ALL_NODES
        self.helper_pairs_from = HELPER_PAIRS_FROM
        self.moon_nodes = ROOT_MOON_NODES
        self.proof_cut = 0

    def __dealloc__(self):
        tt_free(&self.tt)

    def share_table(self, Engine owner):
        """Use ``owner``'s table instead of this engine's own (which is freed): engines that
        search in parallel threads, or one and its helper, then share what each learns. The
        owner is cleared and given moon totals first, the sharers follow (clear, set_moon_total).
        Only engines of the same rules share: the entries hold no rules, and the owner's were
        taken for the sharer's own."""
        if owner._owner is not None or self._owner is not None:
            raise ValueError("an engine shares the table of an owning engine, once")
        if owner._rules != self._rules:
            raise ValueError("an engine shares the table of an engine of the same rules")
        tt_free(&self.tt)
        if tt_share(&self.tt, &owner.tt) != 0:
            raise MemoryError("cannot share the transposition table")
        self._owner = owner

    def set_helper(self, Engine helper):
        """Have ``helper`` (an idle engine sharing this one's table, or None) search each large
        pass of value(), and its root's moon search, in a second thread, in another order near
        the root (see _reverse): the two threads split the work through the table, and
        whichever search ends first answers it (see _run)."""
        if helper is not None and (helper is self or (helper._owner or helper)
                                   is not (self._owner or self)):
            raise ValueError("a helper shares its engine's table")
        self._helper = helper

    def set_lender(self, lender):
        """Ask ``lender`` (or None) for a helper at the start of each pass of value(), when
        none was set: ``lender.lend()`` gives an idle engine or None, ``lender.give_back(e)``
        takes it back after the pass. When none is idle, ``lender.invite(self)`` says that a
        helper may still join the pass (join_pass) until ``lender.uninvite(self)``. Engines
        that fall idle while another still searches (the last questions of a parallel
        analysis) then help it at once."""
        self._lender = lender

    def join_pass(self, Engine helper):
        """Start ``helper`` (idle, sharing the table) on the pass in progress, if it still is
        (True). Called by the lender while this engine searches; the pass gives it back."""
        if not self.invited:
            return False
        self.set_helper(helper)
        self.invited = 0
        self._arm(self.hbeta, self.hblocker)
        self._joined = helper
        _spawn(&self.hctl)
        self.joins += 1
        return True

    def set_moon_total(self, int total):
        """Values depend on M, so a new M empties the table. A sharer only follows its owner's
        clear: it takes the owner's M, set first, or it would read entries of another M."""
        if self._owner is not None and total != self._owner.g.moon_total:
            raise ValueError(f"a sharer's moon total ({total}) is its owner's "
                             f"({self._owner.g.moon_total}): set the owner's first")
        if total != self.g.moon_total:
            self.g.moon_total = total
            self._clear_table()

    cdef void _clear_table(self):
        if self._owner is None:
            tt_clear(&self.tt)
        else:
            tt_follow(&self.tt, &self._owner.tt)

    def set_cancelled(self, bint cancelled):
        """Stop this engine's search in progress, and every later one until unset (from any
        thread: Solver.cancel)."""
        self.cancelled = cancelled

    def clear(self):
        """Forget what earlier searches learnt (the table, the history of cut-offs), so that
        the next search runs as on a fresh engine."""
        self._clear_table()
        memset(self.s.hist, 0, sizeof(self.s.hist))
        memset(self.s.killer, -1, sizeof(self.s.killer))

    def touch(self):
        """Clear, and have the system map the table's memory now rather than page by page
        during the first searches."""
        self.clear()
        if self._owner is None:
            with nogil:
                tt_touch(&self.tt)

    cdef void _load(self, hands, trick, int leader, bint broken, bint first_trick,
                    int forced_lead, int moon, int target, long long node_limit,
                    double seconds, int interrupts=-1) except *:
        cdef int i
        cdef State* s = &self.s
        if self._owner is not None:
            # a sharer searches the owner's generation, under the owner's moon total: one left
            # behind, armed the owner as its helper, took it back to entries of another total
            if self.g.moon_total != self._owner.g.moon_total:
                raise ValueError(f"a sharer's moon total ({self.g.moon_total}) is not its "
                                 f"owner's ({self._owner.g.moon_total}): set_moon_total")
            tt_follow(&self.tt, &self._owner.tt)
        s.cards_left = 0
        for i in range(4):
            s.hand[i] = hands[i]
            s.cards_left += popcount(s.hand[i])
            s.side[i] = (i & 1) if self.g.partnership else i
        s.hand_pos = 0
        s.hand_neg = 0
        for i in range(64):
            if ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) >> i) & 1:
                if self.g.values[i] > 0:
                    s.hand_pos += self.g.values[i]
                else:
                    s.hand_neg += self.g.values[i]
        if len(trick) > 3:
            raise ValueError("a trick in progress holds at most 3 cards")
        s.ntrick = len(trick)
        s.on_table = 0
        for i in range(s.ntrick):
            s.trick[i] = trick[i]
            s.on_table |= (<uint64_t>1) << s.trick[i]
        s.win = find_winning_index(s) if s.ntrick > 0 else 0
        s.leader = leader
        s.broken = broken
        s.first_trick = first_trick
        s.forced_lead = forced_lead
        s.moon = moon
        s.target = target
        s.nodes = 0
        s.trick_nodes = 0
        s.node_limit = node_limit
        s.deadline = _now() + seconds if seconds > 0 else 0
        s.interrupts = interrupts if interrupts >= 0 else hdd_interrupts
        s.cancelled = &self.cancelled
        s.aborted = 0
        s.narrow = 0
        s.narrow_moon = 0
        s.sweep_from = self.sweep_from
        s.sweep_cards = self.sweep_cards
        s.etc_from = self.etc_from
        s.probe_only = 0
        s.probe_miss = 0
        s.helper = 0
        s.stop = NULL
        s.helped = NULL

    def value(self, hands, trick, int leader, bint broken, bint first_trick, int forced_lead,
              int moon, int target, int guess=0, long long node_limit=0, double seconds=0,
              report=None, int interrupts=-1):
        """Exact value to go for ``target`` (a seat, or a side 0/1 with partnerships): the
        points it takes from here on with best play, the moon's effect included. ``report``,
        if given, is called with the bounds proved so far (low, high; None for none yet) each
        time a pass tightens them, for a live display of a long solve. ``interrupts``, the count
        of ``interrupts()`` when the question began (-1: now), makes any Ctrl-C since stop it."""
        cdef int lo = -INF, hi = INF, g = guess, beta, v, floor, narrow_below, moon_open
        cdef int told_lo = -INF, told_hi = INF
        cdef long long moon_budget = self.moon_nodes, moon_mark, soft
        self._load(hands, trick, leader, broken, first_trick, forced_lead, moon, target,
                   node_limit, seconds, interrupts)
        self.passes = []
        floor = self._moon_floor_value()
        moon_open = floor > -INF
        if moon_open:
            moon_open = self._others_moon(moon_budget, 1)
            if self.s.aborted:
                self._count()
                raise SearchAborted(_why_aborted(&self.s))
            if moon_open == 1:
                lo = g = floor
            moon_open = moon_open == 2
        moon_mark = self.s.nodes
        # narrowed passes below this window only: one that fails fails higher up too. In
        # bridge play they cost more than they save (their passes mostly fail low)
        narrow_below = (INF if self.s.cards_left >= self.narrow_from and not self.g.tricks_wanted
                        else -INF)
        while lo < hi:
            if report is not None and (lo != told_lo or hi != told_hi):
                told_lo, told_hi = lo, hi
                report(lo if lo > -INF else None, hi if hi < INF else None)
            if moon_open and lo < floor and self.s.nodes - moon_mark >= moon_budget:
                # the passes have outgrown the moon search's budget: give it as much again
                # (so it costs at most what the passes do), as a yes ends the climb at once
                moon_budget *= 2
                moon_open = self._others_moon(moon_budget, 0)
                if self.s.aborted:
                    break
                moon_mark = self.s.nodes
                if moon_open == 1:
                    lo = g = floor
                    moon_open = 0
                    continue
                moon_open = moon_open == 2
            beta = g + 1 if g == lo else g
            # Nor may a single pass outgrow that budget: one pass can cost many times the one
            # before, where a yes would have spared it (a benchmark position worth 26: 14.6 s
            # against 5.0 s). Stopped there, the pass runs again after the moon search, from
            # what the table kept of it.
            soft = moon_mark + moon_budget if moon_open and lo < floor else 0
            if beta < narrow_below:
                # the others limited to their first few cards often still reach beta: a proof
                # found cheaply
                v = self._limited_pass(beta, self.narrow_cards, soft)
                if self.s.aborted:
                    if self._cut_short():
                        continue
                    break
                if v >= beta:
                    lo = g = v
                    continue
                narrow_below = beta
                if not self.proof_cut:
                    soft = 0  # the full pass after it is nearly always the proof: let it end
            v = self._limited_pass(beta, 0, soft)
            if self.s.aborted:
                if self._cut_short():
                    continue
                break
            if v < beta:
                hi = v
            else:
                lo = v
            g = v
        self._count()
        if self.s.aborted:
            raise SearchAborted(_why_aborted(&self.s), lo if lo > -INF else None,
                                hi if hi < INF else None)
        return g

    cdef int _limited_pass(self, int beta, int narrow, long long soft):
        """_pass, stopped after ``soft`` nodes of the search in all (0: no such stop) as well
        as at the caller's limit."""
        cdef long long limit = self.s.node_limit
        cdef int v
        if soft and (limit == 0 or soft < limit):
            self.s.node_limit = soft
        v = self._pass(beta, narrow)
        self.s.node_limit = limit
        return v

    cdef bint _cut_short(self):
        """After a pass stopped short: whether only _limited_pass's own stop ended it, the
        caller's budget remaining (the search may then go on)."""
        if _spent(&self.s, self.s.node_limit):
            return 0
        self.s.aborted = 0
        self.moon_cuts += 1
        return 1

    cdef void _arm(self, int beta, int blocker):
        """Set up the helper for the pass below ``beta`` (``blocker``: SCORE_PASS), or for the
        moon search against ``blocker``, from its root."""
        cdef Engine e = self._helper
        cdef Helper* h = &self.hctl
        e.s = self.hroot
        e.s.helper = self.helper_from
        e.s.nodes = e.s.trick_nodes = 0
        e.s.node_limit = 0
        e.s.deadline = 0
        e.s.aborted = 0
        e.s.stop = &h.stop
        e.s.helped = NULL
        e.s.helper_all_at = self.helper_all_nodes
        e.s.helper_pairs = self.helper_pairs_from
        tt_follow(&e.tt, &self.tt)
        h.g = &self.g
        h.s = &e.s
        h.tt = &e.tt
        h.alpha = beta - 1
        h.beta = beta
        h.blocker = blocker
        h.stop = 0
        h.started = 0

    cdef void _count(self):
        """Add the last search's nodes to the engine's counts."""
        self.nodes += self.s.nodes
        self.trick_nodes += self.s.trick_nodes

    cdef int _pass(self, int beta, int narrow):
        """One null-window pass below ``beta``, narrowed to ``narrow`` cards a node of the
        others' (0: none); logged in ``passes`` unless it was cut short."""
        cdef int v
        cdef int64_t before = self.s.nodes
        self.s.narrow = narrow
        v = self._run(beta, SCORE_PASS)
        self.s.narrow = 0
        if not self.s.aborted:
            self.passes.append((beta, v, self.s.nodes - before))
        return v

    cdef int _run(self, int beta, int blocker):
        """search() below ``beta`` (``blocker``: SCORE_PASS), or moon_search() against
        ``blocker``, from the current position, with a helper thread when one is idle."""
        cdef int v
        cdef uint64_t rel
        cdef Helper* h = &self.hctl
        cdef Engine lent = None, joined
        cdef bint invited = 0
        self.hroot = self.s
        self.hbeta = beta
        self.hblocker = blocker
        # (the lender is Python: a Ctrl-C's KeyboardInterrupt comes out of its calls, and the
        # finally leaves no helper running, attached or invited whatever it interrupted)
        try:
            if self._helper is None and self._lender is not None:
                lent = self._lender.lend()
                self.set_helper(lent)
            if self._helper is not None:
                # the search starts it after spawn_nodes nodes (see _tick)
                self._arm(beta, blocker)
                self.s.helped = h
                self.s.spawn_at = self.s.nodes + self.spawn_nodes
            # a helper that finishes first stops the main search (see _tick)
            h.done = 0
            self.s.stop = &h.done
            if self._helper is None and self._lender is not None:
                # last: a helper may join from the moment the lender knows (another thread
                # can run join_pass inside invite); armed again here, a running helper's
                # state was rewritten and a second thread started on it
                self.invited = invited = 1
                self._lender.invite(self)
            with nogil:
                if blocker == SCORE_PASS:
                    v = search(&self.g, &self.s, &self.tt, beta - 1, beta, &rel)
                else:
                    v = moon_search(&self.g, &self.s, &self.tt, blocker, &rel)
        finally:
            # with the GIL held, so that no helper joins from now on (join_pass)
            self.invited = 0
            self.s.helped = NULL
            atomic_set(&h.stop, 1)
            if h.started:
                with nogil:
                    pthread_join(h.thread, NULL)
                h.started = 0
            self.s.stop = NULL
            if self._helper is not None:
                self.helper_nodes += self._helper.s.nodes
            joined = self._joined
            if lent is not None or joined is not None:
                # before the lender's calls: one interrupted left the helper attached, and the
                # next pass searched it while it also served from the idle engines
                self._helper = None
                self._joined = None
            try:
                if invited:
                    self._lender.uninvite(self)
            finally:
                if lent is not None or joined is not None:
                    self._lender.give_back(lent if lent is not None else joined)
        if h.done:
            # the helper searched the same question from the same root: its answer is as good
            v = h.value
            self.s.aborted = 0
            self.helper_answers += 1
        return v

    cdef int _moon_floor_value(self):
        """The lowest value of the outcome "another side shoots the moon": the target takes
        none of the points, perhaps every negative card and trick. -INF when that outcome
        cannot happen or would not raise the target's score."""
        cdef State* s = &self.s
        cdef int i, c_self, c_other, floor
        moon_constants(&self.g, &c_self, &c_other)
        if c_other <= 0 or s.cards_left == 0 or s.moon == MOON_DEAD or s.moon == s.target + 1:
            return -INF
        floor = s.hand_neg + c_other
        for i in range(s.ntrick):
            if self.g.values[s.trick[i]] < 0:
                floor += self.g.values[s.trick[i]]
        if self.g.trick_points < 0:
            floor += self.g.trick_points * ((s.cards_left + s.ntrick) >> 2)
        return floor

    cdef int _others_moon(self, long long nodes, bint narrowed_first):
        """Can the others together make one of them shoot? 1 yes, 0 no, 2 not settled within
        ``nodes``. When they can, the value is at least _moon_floor_value: the usual answer
        when one seat faces three, found by a moon search instead of climbing to it pass by
        pass. ``narrowed_first``: a narrowed search first, which, when the others can shoot,
        usually shows how cheaply."""
        cdef State* s = &self.s
        cdef int r = 0
        cdef uint64_t rel
        cdef long long limit = s.node_limit, budget
        budget = s.nodes + nodes
        if limit != 0 and limit < budget:
            budget = limit
        if narrowed_first:
            s.node_limit = s.nodes + ROOT_MOON_NARROW_NODES
            if budget < s.node_limit:
                s.node_limit = budget
            s.narrow_moon = self.narrow_cards
            with nogil:
                r = moon_search(&self.g, s, &self.tt, s.target, &rel)
            s.narrow_moon = 0
            if s.aborted:
                r = 0
                s.aborted = _spent(s, budget)
        if not r and not s.aborted:
            s.node_limit = budget
            r = self._run(0, s.target)
        s.node_limit = limit
        if s.aborted:
            # only the caller's own budget ends the call
            s.aborted = _spent(s, limit)
            return 2
        return r

    def probe(self, hands, trick, int leader, bint broken, bint first_trick, int forced_lead,
              int moon, int target, int beta, long long node_limit=0, double seconds=0,
              int interrupts=-1):
        """One null-window pass around ``beta``: a fail-soft value, below ``beta`` exactly when
        the value to go is. Cheaper than ``value`` when only that question matters."""
        cdef int v
        cdef uint64_t rel
        self._load(hands, trick, leader, broken, first_trick, forced_lead, moon, target,
                   node_limit, seconds, interrupts)
        with nogil:
            v = search(&self.g, &self.s, &self.tt, beta - 1, beta, &rel)
        self._count()
        if self.s.aborted:
            raise SearchAborted(_why_aborted(&self.s))
        return v

    def moon(self, hands, trick, int leader, bint broken, bint first_trick, int forced_lead,
             int moon, int target, long long node_limit=0, double seconds=0,
             int interrupts=-1):
        """Can ``target`` make sure of taking every point card of the deal?"""
        cdef int r
        cdef uint64_t rel
        if self.g.moon_total <= 0 or (moon != 0 and moon != target + 1):
            return False
        self._load(hands, trick, leader, broken, first_trick, forced_lead, moon, target,
                   node_limit, seconds, interrupts)
        with nogil:
            r = moon_search(&self.g, &self.s, &self.tt, -1, &rel)
        self._count()
        if self.s.aborted:
            raise SearchAborted(_why_aborted(&self.s))
        return bool(r)

    def move_groups(self, hands, trick, int leader, bint broken, bint first_trick,
                    int forced_lead):
        """Legal cards of the player to move as runs of equivalent cards: [(card, run_mask)]."""
        cdef int reps[16]
        cdef uint64_t runs[16]
        cdef int n, i, player
        self._load(hands, trick, leader, broken, first_trick, forced_lead, 0, 0, 0, 0)
        player = (self.s.leader + self.s.ntrick) & 3
        n = group_moves(&self.g, &self.s, legal_mask(&self.g, &self.s, player), reps, runs)
        return [(reps[i], runs[i]) for i in range(n)]

    def claims(self, hands, int leader, bint broken, int moon, int target,
               bint first_trick=False, int forced_lead=-1):
        """What the static rules of _bounds claim at a trick boundary (after trick 1, or with
        ``first_trick`` at the start of the hand, ``forced_lead`` the card that must lead or
        -1), each with the cards it relied on, for tests that check every claim against plain
        search: ``cannot_win`` (the target's side wins no more tricks), ``can_duck`` (the
        target can lose every trick), ``guards`` (per seat x, the target keeps x from x's own
        point card), ``others_blocked`` (no other side can take every point card),
        ``quick_tricks`` (tricks the leader's side can take, when only tricks count),
        ``lead_side_max`` (tricks the leader's side can take at most, with partnerships; None
        without), ``leads_a_point`` (the leader's side takes a point card in the next trick)."""
        cdef uint64_t rel, leader_flag = LEADER_DEP
        cdef int x
        self._load(hands, [], leader, broken, first_trick, forced_lead, moon, target, 0, 0)
        out = {}
        rel = 0
        out["cannot_win"] = (bool(target_cannot_win(&self.s, &rel)), rel & ~leader_flag)
        rel = 0
        out["can_duck"] = (bool(target_can_duck(&self.g, &self.s, &rel)), rel & ~leader_flag)
        guards = {}
        for x in range(4):
            rel = 0
            if x != target and cannot_shoot(&self.g, &self.s, target, x, &rel):
                guards[x] = rel
        out["guards"] = guards
        rel = 0
        out["others_blocked"] = (bool(others_cannot_shoot(&self.g, &self.s, &rel)), rel)
        rel = 0
        out["quick_tricks"] = (quick_tricks(&self.g, &self.s, &rel), rel & ~leader_flag)
        rel = 0
        out["lead_side_max"] = ((lead_side_max(&self.s, self.s.cards_left >> 2, &rel), rel)
                                if self.g.partnership else (None, 0))
        rel = 0
        out["leads_a_point"] = (bool(leads_a_point(&self.g, &self.s, &rel)), rel & ~leader_flag)
        return out

    cdef void _load_in_trick(self, hands, int leader, trick, bint broken, int moon,
                             int target) except *:
        """Load the position once the cards of ``trick`` (in play order from ``leader``) have
        been played from ``hands``, for the tests of the in-trick rules below."""
        cdef int i
        hands = list(hands)
        for i, c in enumerate(trick):
            hands[(leader + i) & 3] &= ~(1 << c)
        self._load(hands, list(trick), leader, broken, False, -1, moon, target, 0, 0)

    def trick_lost_claim(self, hands, int leader, trick, int moon, int target):
        """What trick_lost claims once the cards of ``trick`` (one to three, in play order from
        ``leader``) have been played from ``hands``, hearts broken, ``moon`` the moon state
        before the trick: (the most the target takes from there on, the cards relied on), or
        None where it claims nothing."""
        cdef uint64_t rel = 0
        cdef int hi = 0
        self._load_in_trick(hands, leader, trick, True, moon, target)
        if not trick_lost(&self.g, &self.s, INF, &hi, &rel):
            return None
        return hi, rel

    def shot_lost_claim(self, hands, int leader, trick, int target):
        """What shot_lost claims once the cards of ``trick`` (one to three, in play order from
        ``leader``) have been played from ``hands``, hearts broken: the cards relied on when it
        says the target's side can no longer take every point card, else None."""
        cdef uint64_t rel = 0
        self._load_in_trick(hands, leader, trick, True, 0, target)
        if not shot_lost(&self.g, &self.s, &rel):
            return None
        return rel

    def trick_claim(self, hands, int leader, trick, bint broken=True, bint mover=True):
        """What trick_then_cash claims once the cards of ``trick`` (one to three, in play order
        from ``leader``) have been played from ``hands`` (with partnerships), hearts
        ``broken`` or not before the trick: the tricks the side to play takes for sure, this
        one included (0: no claim), and the cards relied on; with ``mover`` false, those of
        the other side."""
        cdef uint64_t rel = 0
        cdef int i
        self._load_in_trick(hands, leader, trick, broken, 0, 0)
        i = self.s.side[(leader + len(trick)) & 3] ^ (0 if mover else 1)
        return trick_then_cash(&self.g, &self.s, i, 14, &rel), rel

    def hashes(self, hands, int leader, int moon=0, int target=0, bint broken=True,
               bint first_trick=False, int forced_lead=-1, int kind=KIND_SCORE):
        """The whole-position hash and the table key's check of a position at a trick
        boundary (by default hearts broken, after trick 1): tests check that positions which
        differ, or whose keys' shapes differ, get different ones."""
        cdef Key key
        self._load(hands, (), leader, broken, first_trick, forced_lead, moon, target, 0, 0)
        make_key(&self.tt, &self.g, &self.s, kind, &key)
        return exact_hash(&self.s, kind), key.check
