# Move generation: legal cards under the rules, one card per run of equivalent cards,
# and a Hearts-aware ordering for alpha-beta. Header-only so the search inlines it.
from libc.stdint cimport uint64_t, int64_t
from solver._state cimport (Game, State, popcount, ctz, msb, SUIT_LANE, HEARTS, BREAK_NONE)


cdef inline uint64_t legal_mask(const Game* g, const State* s, int player) noexcept nogil:
    cdef uint64_t h = s.hand[player]
    cdef uint64_t L, f
    if s.ntrick > 0:
        f = h & (<uint64_t>SUIT_LANE << (16 * (s.trick[0] >> 4)))
        L = f if f else h
    elif s.forced_lead >= 0:
        L = (<uint64_t>1) << s.forced_lead
    elif g.hearts_break != BREAK_NONE and not s.broken:
        f = h & ~(<uint64_t>SUIT_LANE << (16 * HEARTS))
        L = f if f else h
    else:
        L = h
    if s.first_trick and not g.first_trick_points:
        f = L & ~g.point_mask
        if f:
            L = f
    return L


cdef inline int winning_index(const State* s) noexcept nogil:
    """Position in s.trick of the card now winning the trick (s.ntrick > 0)."""
    return s.win


cdef inline int find_winning_index(const State* s) noexcept nogil:
    """winning_index worked out from the trick's cards (s.ntrick > 0), for a state loaded
    with a trick in progress."""
    cdef int best = 0, i
    cdef int suit = s.trick[0] >> 4
    for i in range(1, s.ntrick):
        if (s.trick[i] >> 4) == suit and s.trick[i] > s.trick[best]:
            best = i
    return best


cdef inline int group_moves(const Game* g, const State* s, uint64_t L, int* reps,
                            uint64_t* runs) noexcept nogil:
    """One representative (the lowest card) per run of equivalent legal cards, highest run
    first: same suit, same value (Game.same_value), nothing between them that could still
    separate them: a card in a hand, or the card winning the trick (other cards on the table
    lose and leave with the trick). ``runs`` (may be NULL) gets each run."""
    cdef uint64_t present = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef int n = 0, c
    cdef uint64_t bit, between, mates, run, low
    if s.ntrick > 0:
        present |= (<uint64_t>1) << s.trick[winning_index(s)]
    while L:
        c = msb(L)
        bit = (<uint64_t>1) << c
        mates = L & g.same_value[c]
        # the cards below c in its suit, down to the first one present that is not a mate
        low = (bit - 1) & ~(((<uint64_t>1) << (c & ~15)) - 1)
        between = present & ~mates & low
        if between:
            low &= ~(((<uint64_t>2) << msb(between)) - 1)
        run = (mates & low) | bit
        L &= ~run
        reps[n] = ctz(run)
        if runs != NULL:
            runs[n] = run
        n += 1
    return n


cdef enum:
    VOID_PENALTY = 100    # lead_weight: per other seat void in the suit led, for the target's side
    REPLY_PENALTY = 40    # lead_weight: per card the target's side holds in the suit the others
                          # lead (keeps the tiers apart: at most 12 cards)
    OPP_VOID_PENALTY = 100  # own_lead_weight: per opponent void in the suit led
    OPP_CARD_PENALTY = 16   # own_lead_weight: per opponent's card in the suit led
    FINESSE_BONUS = 80      # own_lead_weight: a losing lead through the top card towards the
                            # teammate's, which beats the fourth seat's
    FREE_LAST = -4000       # own_lead_weight: a suit the opponents are out of, after every other
    RUN_BONUS = 40          # own_lead_weight: a sure winner that stands for others of its run
    DISCARD_LENGTH = 2      # own_discard_weight: per card of the suit in the discarding hand
    DISCARD_GUARD = 6       # own_discard_weight: off a lone top card, or the second best of two


cdef inline int lead_weight(const Game* g, const State* s, int player, int c,
                            int wants_target) noexcept nogil:
    """How promising a lead is. A player who wants the trick away from the target's side leads
    where an opponent of the target must overtake; one who wants it won by the target leads
    where the target's side must play above everyone else. Short of a lead the others must
    overtake, the target's side leads where the others still follow: a void seat may discard
    anything, which multiplies the replies to refute (10 % fewer nodes in four-seat analyses).
    The others, likewise, lead where the target's side holds few cards (another 3-7 %)."""
    cdef int suit = c >> 4, rank = c & 15, q, lo_q, hi_other = -1, lo_target = 99, tvoid = 1
    cdef int voids = 0, replies = 0
    cdef uint64_t lane
    for q in range(4):
        if q == player:
            continue
        lane = (s.hand[q] >> (16 * suit)) & SUIT_LANE
        if lane == 0:
            voids += 1
            continue
        if s.side[q] == s.target:
            tvoid = 0
            replies += popcount(lane)
            lo_q = ctz(lane)
            if lo_q < lo_target:
                lo_target = lo_q
        else:
            if not wants_target and ctz(lane) > rank:
                return 3000 + 64 * g.values[c] + rank
            if msb(lane) > hi_other:
                hi_other = msb(lane)
    if not wants_target:
        return (1000 if hi_other > rank else 0) - 64 * g.values[c] - rank - VOID_PENALTY * voids
    if s.side[player] == s.target:
        return 1000 + rank
    if not tvoid and lo_target > rank and lo_target > hi_other:
        return 3000 + rank - REPLY_PENALTY * replies
    if tvoid:
        return -rank
    lane = 0
    for q in range(4):
        if s.side[q] != s.target:
            lane |= s.hand[q]
    lane = (lane >> (16 * suit)) & SUIT_LANE & ((<uint64_t>1 << lo_target) - 1)
    return 1000 + 16 * popcount(lane) - rank - REPLY_PENALTY * replies


ctypedef struct LeadSuit:
    int hi_opp       # the opponents' highest card of the suit (rank, -1: none)
    int base         # a losing lead's weight before its rank: towards a teammate's winner,
                     # a finesse, or plain
    int replies      # the opponents' replies to refute, as penalty points
    int opp_void     # every opponent is out of the suit
    int hi_partner   # the teammate's highest card of the suit (rank, -1: none)
    int long_hand    # the leader holds as many cards of the suit as the teammate or more
    int lone_top     # the side holds a single card above the opponents' best


cdef inline void own_lead_suit(const State* s, int player, int suit, LeadSuit* ls) noexcept nogil:
    """What own_lead_weight needs to know of a suit, the same for each of its cards."""
    cdef int q, top, hi_opp = -1, hi_partner = -1, replies = 0
    cdef int mine = s.side[player] == s.target, hi_second = -1, hi_fourth = -1, partner_len = 0
    cdef uint64_t lane
    for q in range(4):
        if q == player:
            continue
        lane = (s.hand[q] >> (16 * suit)) & SUIT_LANE
        if (s.side[q] == s.target) != mine:
            replies += OPP_CARD_PENALTY * popcount(lane) if lane else OPP_VOID_PENALTY
        if lane == 0:
            continue
        top = msb(lane)
        if (s.side[q] == s.target) == mine:
            partner_len = popcount(lane)
            if top > hi_partner:
                hi_partner = top
        else:
            if top > hi_opp:
                hi_opp = top
            if q == ((player + 1) & 3):
                hi_second = top
            else:
                hi_fourth = top
    ls.hi_opp = hi_opp
    ls.replies = replies
    ls.opp_void = hi_opp < 0
    ls.hi_partner = hi_partner
    lane = s.hand[player]
    for q in range(4):
        if q != player and (s.side[q] == s.target) == mine:
            lane |= s.hand[q]
    lane = (lane >> (16 * suit)) & SUIT_LANE
    ls.lone_top = hi_opp >= 0 and popcount(lane >> (hi_opp + 1)) == 1
    ls.long_hand = popcount((s.hand[player] >> (16 * suit)) & SUIT_LANE) >= partner_len
    if hi_partner > hi_opp and not ls.lone_top:
        # (a teammate's only card above the opponents' best is a lead like a losing one, as
        # the leader's own: own_lead_weight)
        ls.base = 2000
    elif hi_second > hi_fourth and hi_partner > hi_fourth and partner_len > 1:
        ls.base = FINESSE_BONUS
    else:
        ls.base = 0


cdef inline int own_lead_weight(const LeadSuit* ls, int rank, int seq) noexcept nogil:
    """How promising a lead is when every side wants tricks (bridge play; the target's side
    against the rest): cash a sure winner, one of a run (``seq``) first (2 % fewer nodes),
    else lead low towards a teammate's winner, else
    lose the cheapest card, first where the teammate's highest card beats the fourth seat's
    and the top card sits under it, in the second seat, which must spend it or lose the trick
    (9 % fewer nodes); within each, where the opponents have few replies to refute: few cards
    of the suit, and no void that may discard anything (12-26 % fewer nodes). A suit both
    opponents are out of comes last: its tricks are the side's whenever it leads them, and
    cashing them early only lets the opponents discard at will (5-12 % fewer nodes). ``ls``:
    the suit's facts (own_lead_suit)."""
    if ls.opp_void:
        return FREE_LAST + rank
    if rank > ls.hi_opp and ls.hi_partner > ls.hi_opp and ls.long_hand:
        # high card from the short hand first: the longer hand leads low to the teammate's
        # winners instead of cashing its own, which would block the suit
        return ls.base - rank - ls.replies
    if rank > ls.hi_opp and ls.lone_top:
        # the side's only card above the opponents' best: cashing it promotes their card, so
        # it ranks with the losing leads, the first of its suit (DDS ranks such winners low)
        return rank - ls.replies
    if rank > ls.hi_opp:
        return 3000 + (RUN_BONUS if seq else 0) + rank - ls.replies
    return ls.base - rank - ls.replies


cdef inline int own_discard_weight(const State* s, int player, int c) noexcept nogil:
    """A discard when every side wants tricks: from a long suit, a low card, keeping a lone top
    card of a suit and the second-best guarded once (after DDS's discards)."""
    cdef uint64_t lane = (s.hand[player] >> (16 * (c >> 4))) & SUIT_LANE
    cdef uint64_t every = ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) >> (16 * (c >> 4))) \
        & SUIT_LANE
    cdef int n = popcount(lane), top = msb(every), w
    w = DISCARD_LENGTH * n - (c & 15)
    if n == 1 and msb(lane) == top:
        w -= DISCARD_GUARD
    elif n == 2 and every != (<uint64_t>1) << top \
            and msb(lane) == msb(every & ~((<uint64_t>1) << top)):
        w -= DISCARD_GUARD
    return w


ctypedef struct FollowCtx:
    int rest_hi      # the highest card of the suit led among the opponents still to play
    int stands       # the trick's winning card is the player's side's and beats rest_hi
    int fourth_tops  # second seat: the fourth seat's top card beats the trick and rest_hi
    int behind_lo    # second seat: the higher of the third and fourth seats' lowest cards
                     # of the suit led (-1: none)
    int fourth_next  # third seat: the fourth seat's second-highest card of the suit led (-1:
                     # none), or -2 when the fourth seat is out of it


cdef inline void own_follow_ctx(const State* s, int player, int wi, int wc,
                                FollowCtx* f) noexcept nogil:
    """What own_follow_weight needs to know of the trick, the same for each card."""
    cdef int q, k, led = s.trick[0] >> 4
    cdef int mine = s.side[player] == s.target
    cdef uint64_t lane, third
    f.rest_hi = -1
    for k in range(s.ntrick + 1, 4):
        q = (s.leader + k) & 3
        if (s.side[q] == s.target) != mine:
            lane = (s.hand[q] >> (16 * led)) & SUIT_LANE
            if lane and msb(lane) > f.rest_hi:
                f.rest_hi = msb(lane)
    f.stands = (s.side[(s.leader + wi) & 3] == s.target) == mine and (wc & 15) > f.rest_hi
    lane = (s.hand[(s.leader + 3) & 3] >> (16 * led)) & SUIT_LANE
    f.fourth_tops = (s.ntrick == 1 and lane != 0 and msb(lane) > (wc & 15)
                     and msb(lane) > f.rest_hi)
    f.behind_lo = -1
    f.fourth_next = -2
    if s.ntrick == 1:
        third = (s.hand[(s.leader + 2) & 3] >> (16 * led)) & SUIT_LANE
        if third:
            f.behind_lo = ctz(third)
        if lane and ctz(lane) > f.behind_lo:
            f.behind_lo = ctz(lane)
    elif s.ntrick == 2 and lane:
        lane &= ~((<uint64_t>1) << msb(lane))
        f.fourth_next = msb(lane) if lane else -1


cdef inline int own_follow_weight(const State* s, const FollowCtx* f, int player, int c,
                                  int wc, int follows, int seq) noexcept nogil:
    """How promising a card is in a trick someone else led, when every side wants tricks (the
    target's side against the rest): let a teammate's sure winner stand with the lowest card,
    also one still to play (second seat); win for sure as cheaply as possible; else, second
    seat, split a sequence (``seq``: the card stands for others), or beat the lead as cheaply
    as possible, a card the seats behind must beat anyway counting as low; third seat, force
    out the fourth seat's top card with the cheapest card that does, or play high; else lose
    the lowest card (after DDS's orders; 28 % fewer nodes than playing high at once);
    discards by own_discard_weight (5 %). ``f``: the trick's facts (own_follow_ctx)."""
    cdef int rank = c & 15
    if not follows:
        if f.stands:
            return 10000 + own_discard_weight(s, player, c)
        return own_discard_weight(s, player, c)
    if f.stands:
        return 10000 - rank
    if f.fourth_tops:
        return 9500 - rank
    if c > wc:
        if rank > f.rest_hi:
            return 9000 - rank
        if s.ntrick == 1:
            # a card the third or fourth seat must beat anyway decides nothing
            if f.behind_lo > rank:
                return -rank
            if seq:
                return 2001 + rank
            return 2000 - rank
        if f.fourth_next >= -1 and rank > f.fourth_next:
            return 2100 - rank
        return 2000 + rank
    return -rank


cdef inline int discard_key(const Game* g, const State* s, int player, int c) noexcept nogil:
    """Which card to discard first, all else equal: a card of a suit that holds no valued
    card under the rules (the suits of the point cards are kept for the fight over them), and
    in a suit the card with the fewest cards above it still out (the likeliest to win a trick
    later)."""
    cdef uint64_t lane = <uint64_t>SUIT_LANE << (16 * (c >> 4))
    return (0 if g.valued_mask & lane else 16) + 16 - popcount(
        (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[player] & lane
        & ~((<uint64_t>2 << c) - 1))


cdef inline void _sort_moves(int64_t* w, int* moves, uint64_t* runs, int n) noexcept nogil:
    """Sort moves and runs by w, highest first, equal weights in their order."""
    cdef int i, j, tmp
    cdef int64_t wt
    cdef uint64_t run
    for i in range(1, n):
        j = i
        while j > 0 and w[j] > w[j - 1]:
            wt = w[j]; w[j] = w[j - 1]; w[j - 1] = wt
            tmp = moves[j]; moves[j] = moves[j - 1]; moves[j - 1] = tmp
            run = runs[j]; runs[j] = runs[j - 1]; runs[j - 1] = run
            j -= 1


cdef inline void _order_own(const State* s, int player, int* moves, uint64_t* runs, int n,
                            int first) noexcept nogil:
    """order_moves when every side wants tricks (bridge play), n > 1."""
    cdef int64_t w[16]
    cdef int i, c, wi, wc, k1, seen = 0
    cdef LeadSuit ls[4]
    cdef FollowCtx fc
    if s.ntrick == 0:
        k1 = s.killer[s.cards_left >> 2][player]
        for i in range(n):
            c = moves[i]
            # a remembered card matches its run: cards that were one run apart may have
            # merged since, the run named by another of its cards
            if first >= 0 and (runs[i] >> first) & 1:
                # after the first killer lead (5 % fewer nodes)
                w[i] = 3 << 27
            elif k1 >= 0 and (runs[i] >> k1) & 1:
                w[i] = 1 << 29
            else:
                if not (seen >> (c >> 4)) & 1:
                    own_lead_suit(s, player, c >> 4, &ls[c >> 4])
                    seen |= 1 << (c >> 4)
                w[i] = <int64_t>own_lead_weight(&ls[c >> 4], c & 15,
                                                (runs[i] & (runs[i] - 1)) != 0) * 65536 \
                    + (s.hist[c] if s.hist[c] < 65535 else 65535)
    else:
        wi = winning_index(s)
        wc = s.trick[wi]
        own_follow_ctx(s, player, wi, wc, &fc)
        for i in range(n):
            c = moves[i]
            if first >= 0 and (runs[i] >> first) & 1:
                w[i] = 1 << 30
            else:
                w[i] = <int64_t>own_follow_weight(s, &fc, player, c, wc, (c >> 4) == (wc >> 4),
                                                  (runs[i] & (runs[i] - 1)) != 0) * 65536 \
                    + (s.hist[c] if s.hist[c] < 65535 else 65535)
    _sort_moves(w, moves, runs, n)


cdef inline void order_moves(const Game* g, const State* s, int player, int* moves,
                             uint64_t* runs, int n, int first, int wants_target) noexcept nogil:
    """Sort moves (and their ``runs`` alongside) best-first: ``first`` (a remembered best card,
    or -1) leads, then cards that leave the trick with the side the player wants it to go to
    (the target's side when ``wants_target``), dumping value on it (discards by
    ``discard_key``; the target keeps its one-point hearts while hearts are closed); the
    history of cut-offs breaks ties. In a trick without value, the last of the others
    overtakes the target instead, so as not to hand it the lead. When every side wants tricks
    (``g.tricks_wanted``) a side wins cheaply and loses its lowest card, and leads a seat's
    killer lead (the last that cut off) before ``first``."""
    # 64-bit weights: a card's value reaches 1000 (Rules), and from about 355 on its tier
    # (64 times the value, and more) shifted by 16 bits overflowed an int: undefined, and
    # where it wrapped (-fwrapv) it put the costliest dumps last (tests/test_native_limits.py)
    cdef int64_t w[16]
    cdef int i, c, tw, wi, wc, wseat, wins, follows, t
    cdef int led, seize = 0, keep_hearts = 0
    if n < 2:
        return
    if g.tricks_wanted:
        _order_own(s, player, moves, runs, n, first)
        return
    if s.ntrick > 0:
        wi = winning_index(s)
        wc = s.trick[wi]
        wseat = (s.leader + wi) & 3
        led = wc >> 4
        # the last of the others in a trick without value, the target winning it: take the
        # lead from the target, cheaply, rather than hand it over
        seize = (wants_target and s.ntrick == 3 and s.side[wseat] == s.target
                 and (s.on_table & g.valued_mask) == 0)
        # the target discarding while hearts are closed and none is in the trick: its first
        # heart would open hearts to the others' leads, so its one-point hearts are not dumped
        # for their value before the other discards (4 % fewer nodes)
        keep_hearts = (s.side[player] == s.target and not s.broken
                       and g.hearts_break != BREAK_NONE
                       and not (s.on_table >> (16 * HEARTS)) & SUIT_LANE)
    for i in range(n):
        c = moves[i]
        if c == first:
            w[i] = 1 << 30
            continue
        if s.ntrick == 0:
            t = lead_weight(g, s, player, c, wants_target)
        else:
            follows = (c >> 4) == led
            wins = follows and c > wc
            tw = (s.side[player] if wins else s.side[wseat]) == s.target
            if seize and wins:
                t = 20000 - (c & 15)
            elif tw == wants_target:
                if follows:
                    t = 10000 + 64 * g.values[c] + (c & 15)
                elif keep_hearts and (c >> 4) == HEARTS and g.values[c] == 1:
                    t = 10000 + discard_key(g, s, player, c)
                else:
                    t = 10000 + 64 * g.values[c] + discard_key(g, s, player, c)
            elif not follows:
                t = -64 * g.values[c] + discard_key(g, s, player, c)
            elif wants_target and not wins and s.side[player] != s.target:
                # one of the others under another: shed the highest card, keep the low ones
                # to duck under the target later
                t = (c & 15) - 64 * g.values[c]
            else:
                t = -(c & 15) - 64 * g.values[c]
        w[i] = <int64_t>t * 65536 + (s.hist[c] if s.hist[c] < 65535 else 65535)
    _sort_moves(w, moves, runs, n)
