# Bounds on the value to go at a trick boundary. The value is one of three kinds of outcome
# (nobody shoots the moon, the target's side shoots, another side shoots), each bounded from
# what is still to be won; a kind that the state rules out is left out. Inside a trick: under
# Hearts rules the bound of a trick the target's side has lost (trick_lost), in bridge play the
# tricks the side to play takes for sure (trick_then_cash); and for the moon search, a trick
# whose point card the target's side cannot take (shot_lost).
#
# A test that compares ranks and holds adds to ``rel`` the lowest card of each suit whose
# owner it depended on (the cards above it count too): any position that agrees with this one
# down to those cards passes the same test. A test that fails leaves only the plain bounds,
# which hold anywhere, so it adds nothing.
from libc.stdint cimport uint64_t
from solver._state cimport (Game, State, ctz, msb, popcount, MOON_ADD, MOON_SUBTRACT, MOON_DEAD,
                            INF, SUIT_LANE, LEADER_DEP, BREAK_NONE)
from solver._movegen cimport legal_mask, winning_index

ctypedef struct Outcomes:
    int lo[3]          # OUT_NONE, OUT_SELF, OUT_OTHER
    int hi[3]
    int possible[3]
    int cap            # an upper bound on the value whatever the outcome (INF: none known)
    int other_blocked  # the target can stop every other side's moon: OUT_OTHER bounds no maximum
    uint64_t rel_lo    # cards whose ranks the lower bounds rely on (see _ttable)
    uint64_t rel_hi    # and the upper bounds

cdef enum:
    OUT_NONE = 0
    OUT_SELF = 1
    OUT_OTHER = 2


cdef inline void moon_constants(const Game* g, int* c_self, int* c_other) noexcept nogil:
    """Change of the target's score (relative to adding up its cards) when it, or another
    side, shoots the moon."""
    cdef int M = g.moon_total
    if g.moon_mode == MOON_ADD:
        c_self[0] = -M
        c_other[0] = M
    elif g.moon_mode == MOON_SUBTRACT:
        c_self[0] = -2 * M
        c_other[0] = 0
    else:
        c_self[0] = 0
        c_other[0] = 0


cdef inline int terminal_value(const Game* g, const State* s) noexcept nogil:
    cdef int c_self, c_other
    if g.moon_total > 0 and s.moon >= 1 and s.moon != MOON_DEAD:
        moon_constants(g, &c_self, &c_other)
        return c_self if s.moon - 1 == s.target else c_other
    return 0


cdef inline bint target_cannot_win(const State* s, uint64_t* rel) noexcept nogil:
    """At a trick boundary with another side on lead: in every suit, each card of the target's
    side is below every card of the others, so whatever is led the target's side never wins."""
    cdef uint64_t mine = 0, theirs = 0, m, t, used = 0
    cdef int q, suit
    if s.side[s.leader] == s.target:
        return 0
    for q in range(4):
        if s.side[q] == s.target:
            mine |= s.hand[q]
        else:
            theirs |= s.hand[q]
    for suit in range(4):
        m = (mine >> (16 * suit)) & SUIT_LANE
        t = (theirs >> (16 * suit)) & SUIT_LANE
        if m and t:
            if msb(m) > ctz(t):
                return 0
            used |= (<uint64_t>1) << (16 * suit + ctz(t))
    rel[0] |= used | LEADER_DEP
    return 1


cdef inline bint target_can_duck(const Game* g, const State* s, uint64_t* rel) noexcept nogil:
    """At a trick boundary after trick 1, another side on lead, the target a single seat: the
    target can make sure it never wins another trick. Per suit, with the target's cards
    t1 < t2 < ... and the others' c1 < c2 < ... (all three hands together), t_i < c_i for every
    i both have. Answering each lead with its highest card below the led card keeps this true
    (others' follows and discards only raise their sequence), discarding a suit's highest card
    does too, and the target never leads. On trick 1 the rules may force its discard (no point
    card while it holds another), hence no claim there (tests/test_bounds.py)."""
    cdef uint64_t m, t, used = 0
    cdef int suit
    if g.partnership or s.first_trick or s.leader == s.target:
        return 0
    for suit in range(4):
        m = (s.hand[s.target] >> (16 * suit)) & SUIT_LANE
        t = ((s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) >> (16 * suit)) & SUIT_LANE & ~m
        if m and t:
            used |= (<uint64_t>1) << (16 * suit + ctz(m | t))
        while m and t:
            if ctz(m) > ctz(t):
                return 0
            m &= m - 1
            t &= t - 1
    rel[0] |= used | LEADER_DEP
    return 1


cdef inline uint64_t _guard(const Game* g, const State* s, int guard, int x,
                           int suit) noexcept nogil:
    """x's lowest point card of ``suit`` (as a mask) when seat ``guard`` holds at least as many
    cards of the suit above it as x holds of the suit; else 0.

    The guard then keeps x from ever winning that card: on every trick of the suit, while x
    still holds it, the guard plays a card above it (x follows with one card of the suit a
    trick, so the count it needs drops as fast as the count it spends); it leads the suit, when
    it must, with such a card too, and discards from the suit only when it holds nothing else,
    then its lowest card, which leaves enough above (x, following another suit, holds fewer
    cards of this one than the guard's whole hand). A card x discards on another suit's trick
    is not x's either. Other seats' play does not matter, so this holds whether they help x
    or not."""
    cdef uint64_t pts = (s.hand[x] & g.point_mask) >> (16 * suit) & SUIT_LANE
    cdef uint64_t mine = (s.hand[guard] >> (16 * suit)) & SUIT_LANE
    cdef int p
    if pts == 0:
        return 0
    p = ctz(pts)
    if popcount(mine >> (p + 1)) < popcount((s.hand[x] >> (16 * suit)) & SUIT_LANE):
        return 0
    return (<uint64_t>1) << (16 * suit + p)


cdef inline bint cannot_shoot(const Game* g, const State* s, int guard, int x,
                              uint64_t* rel) noexcept nogil:
    """After trick 1 (whose rules may choose the guard's discards), single seats: ``guard``
    keeps one of x's point cards from x (_guard)."""
    cdef int suit
    cdef uint64_t p
    if g.partnership or s.first_trick:
        return 0
    for suit in range(4):
        p = _guard(g, s, guard, x, suit)
        if p:
            rel[0] |= p
            return 1
    return 0


cdef inline bint others_cannot_shoot(const Game* g, const State* s, uint64_t* rel) noexcept nogil:
    """No other seat can take every point card. Before anyone has taken a point, every other
    seat must be guarded in one and the same suit: one rule of play (a card above the highest
    guarded point card on each trick of the suit) serves them all, where guards in different
    suits could ask for conflicting discards."""
    cdef int x, suit
    cdef uint64_t used, p
    if s.moon != 0:
        return cannot_shoot(g, s, s.target, s.moon - 1, rel)
    if g.partnership or s.first_trick:
        return 0
    for suit in range(4):
        used = 0
        for x in range(4):
            if x == s.target:
                continue
            p = _guard(g, s, s.target, x, suit)
            if p == 0:
                break
            used |= p
        else:
            rel[0] |= used
            return 1
    return 0


cdef inline bint leads_a_point(const Game* g, const State* s, uint64_t* rel) noexcept nogil:
    """At a trick boundary: the leader can lead a point card above every other card of its
    suit, so its side takes a point card now (no other side can shoot the moon)."""
    cdef uint64_t leads = legal_mask(g, s, s.leader)
    cdef uint64_t rest = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3], lane, top
    cdef int suit
    for suit in range(4):
        lane = (rest >> (16 * suit)) & SUIT_LANE
        if lane == 0:
            continue
        top = (<uint64_t>1) << (16 * suit + msb(lane))
        if top & leads & g.point_mask:
            rel[0] |= top | LEADER_DEP
            return 1
    return 0


cdef inline uint64_t top_run(uint64_t mine, uint64_t rest) noexcept nogil:
    """The cards of ``mine`` above every card of ``rest`` (one suit's lane each): the ones
    that win a trick of the suit whatever the holders of ``rest`` play."""
    if rest == 0:
        return mine
    return mine & ~(((<uint64_t>2) << msb(rest)) - 1)


cdef inline int cashable(const uint64_t* hand, int q, uint64_t leads, uint64_t* rel,
                         int need=14) noexcept nogil:
    """Tricks seat q takes by cashing its top cards once on lead, suit after suit: in each suit
    the run of its cards above every other remaining card of the suit, among ``leads`` (the
    cards it may lead now), and the suit's other cards too when no other seat holds more
    cards of it than that run (they are out of it by then, so the low cards win). The count
    stops at the suit that brings it to ``need``: what a bound relies on stays narrow."""
    cdef uint64_t h1 = hand[(q + 1) & 3], h2 = hand[(q + 2) & 3], h3 = hand[(q + 3) & 3]
    cdef uint64_t others = h1 | h2 | h3, mine, won, rest, used = 0
    cdef int suit, qt = 0, run, longest, length
    for suit in range(4):
        mine = (leads >> (16 * suit)) & SUIT_LANE
        if mine == 0:
            continue
        rest = (others >> (16 * suit)) & SUIT_LANE
        won = top_run(mine, rest)
        if won == 0:
            continue
        used |= won << (16 * suit)
        run = popcount(won)
        mine &= ~won
        if mine:
            longest = popcount((h1 >> (16 * suit)) & SUIT_LANE)
            length = popcount((h2 >> (16 * suit)) & SUIT_LANE)
            if length > longest:
                longest = length
            length = popcount((h3 >> (16 * suit)) & SUIT_LANE)
            if length > longest:
                longest = length
            if longest <= run:
                run += popcount(mine)
        qt += run
        if qt >= need:
            break
    rel[0] |= used
    return qt


cdef inline uint64_t _leader_run(uint64_t hl, uint64_t hp, uint64_t opp, int suit,
                                 uint64_t* mine, uint64_t* part) noexcept nogil:
    """The leader's top cards in ``suit`` that win over everyone's, partner's included (0 if
    none); ``mine`` and ``part`` get the leader's and the partner's cards of the suit."""
    mine[0] = (hl >> (16 * suit)) & SUIT_LANE
    part[0] = (hp >> (16 * suit)) & SUIT_LANE
    if mine[0] == 0:
        return 0
    return top_run(mine[0], ((opp >> (16 * suit)) & SUIT_LANE) | part[0])


cdef inline int _partner_cashes(const uint64_t* start, int L, uint64_t hl, uint64_t hp,
                                 uint64_t bits, int k1, uint64_t* rel, int limit) noexcept nogil:
    """``k1`` tricks the leader cashed (its cards ``bits``, ``hl`` and the partner's ``hp``
    left), then what the partner, on lead, cashes."""
    cdef uint64_t hand[4]
    cdef int i
    rel[0] |= bits
    for i in range(4):
        hand[i] = start[i]
    hand[L] = hl
    hand[(L + 2) & 3] = hp
    return k1 + cashable(hand, (L + 2) & 3, hp, rel, limit - k1)


cdef inline int cash_then_cross(const uint64_t* start, int L, uint64_t* rel,
                                int limit=14) noexcept nogil:
    """Tricks of the leader's side when the leader first cashes its top cards in the suits
    where its partner can follow every time, then leads a card of a suit its partner tops, and
    the partner cashes its own top cards, the leader's cashed ones gone (0 when there is no
    such suit). The opponents' cards are all kept: whatever they play or discard can only
    lower their cards, so the count holds whatever they do. The partner's count stops once the
    whole reaches ``limit``."""
    cdef int P = (L + 2) & 3, suit, run, k1 = 0, i
    cdef uint64_t hl = start[L], hp = start[P], mine, part, won, bits = 0
    cdef uint64_t opp = start[(L + 1) & 3] | start[(L + 3) & 3]
    for suit in range(4):
        won = _leader_run(hl, hp, opp, suit, &mine, &part)
        if won == 0:
            continue
        run = popcount(won)
        if popcount(part) < run:
            continue
        k1 += run
        bits |= won << (16 * suit)
        # the leader's run is played; the partner follows with its lowest cards
        hl &= ~(won << (16 * suit))
        for i in range(run):
            part &= part - 1
        hp = (hp & ~((<uint64_t>SUIT_LANE) << (16 * suit))) | (part << (16 * suit))
    for suit in range(4):
        mine = (hl >> (16 * suit)) & SUIT_LANE
        part = (hp >> (16 * suit)) & SUIT_LANE
        if mine and top_run(part, ((opp >> (16 * suit)) & SUIT_LANE) | mine):
            return _partner_cashes(start, L, hl, hp, bits, k1, rel, limit)
    return 0


cdef inline int cash_discard_cross(const uint64_t* start, int L, uint64_t* rel,
                                   int limit=14) noexcept nogil:
    """Tricks of the leader's side when the leader first cashes everything cashable counts
    for it, the partner following low and, when out of the suit, discarding cards that
    cashable would not count for it in the suits the leader does not cash; then the leader
    leads to a suit the partner tops, and the partner cashes (0 when there is no such suit
    or the partner runs out of such cards). The opponents' cards are all kept. The partner's
    count stops once the whole reaches ``limit``."""
    cdef int P = (L + 2) & 3, suit, run, cnt, p, k1 = 0, need = 0
    cdef int junk = 0, cross = -1, i, o1, o3
    cdef uint64_t hl = start[L], hp = start[P], s1 = start[(L + 1) & 3], s3 = start[(L + 3) & 3]
    cdef uint64_t mine, part, op, won, bits = 0, cashed = 0, others, opp = s1 | s3
    for suit in range(4):
        won = _leader_run(hl, hp, opp, suit, &mine, &part)
        if won == 0:
            continue
        run = popcount(won)
        cnt = run
        bits |= won << (16 * suit)
        p = popcount(part)
        if mine != won and p <= run:
            o1 = popcount((s1 >> (16 * suit)) & SUIT_LANE)
            o3 = popcount((s3 >> (16 * suit)) & SUIT_LANE)
            if o1 <= run and o3 <= run:
                # the others are out of the suit by then: the low cards win too
                cnt = popcount(mine)
                won = mine
        k1 += cnt
        cashed |= (<uint64_t>SUIT_LANE) << (16 * suit)
        hl &= ~(won << (16 * suit))
        if p <= cnt:
            need += cnt - p
            part = 0
        else:
            for i in range(cnt):
                part &= part - 1
        hp = (hp & ~((<uint64_t>SUIT_LANE) << (16 * suit))) | (part << (16 * suit))
    if need == 0:
        # cash_then_cross counts this line
        return 0
    others = opp | hl
    for suit in range(4):
        mine = (hl >> (16 * suit)) & SUIT_LANE
        part = (hp >> (16 * suit)) & SUIT_LANE
        op = (others >> (16 * suit)) & SUIT_LANE
        if cross < 0 and mine and top_run(part, op):
            cross = suit
        if (cashed >> (16 * suit)) & 1 or part == 0:
            continue
        won = top_run(part, op)
        run = popcount(won)
        if run and popcount(part) > run \
                and popcount(mine) <= run \
                and popcount((s1 >> (16 * suit)) & SUIT_LANE) <= run \
                and popcount((s3 >> (16 * suit)) & SUIT_LANE) <= run:
            continue
        # the partner's cards below its top run here, which cashable does not count
        junk += popcount(part & ~won)
    if cross < 0 or junk < need:
        return 0
    return _partner_cashes(start, L, hl, hp, bits, k1, rel, limit)


cdef inline bint _may_cross(const uint64_t* hand, int L) noexcept nogil:
    """Whether the partner of L tops the opponents in a suit L holds: else cash_then_cross
    and cash_discard_cross count nothing (the cashing only takes the partner's low cards and
    the leader's, so it never makes such a suit)."""
    cdef uint64_t opp = hand[(L + 1) & 3] | hand[(L + 3) & 3], part, op
    cdef int suit
    for suit in range(4):
        part = (hand[(L + 2) & 3] >> (16 * suit)) & SUIT_LANE
        if part == 0 or ((hand[L] >> (16 * suit)) & SUIT_LANE) == 0:
            continue
        op = (opp >> (16 * suit)) & SUIT_LANE
        if op == 0 or msb(part) > msb(op):
            return 1
    return 0


cdef inline int _topped_length(const uint64_t* hand, int L, uint64_t* theirs) noexcept nogil:
    """The cards of the suits the side of L tops, counted as the longer of its two hands in
    each; ``theirs`` gets the opponents' top card of every other suit."""
    cdef int P = (L + 2) & 3, suit, total = 0, top, a, b
    cdef uint64_t lead, part, every
    for suit in range(4):
        lead = (hand[L] >> (16 * suit)) & SUIT_LANE
        part = (hand[P] >> (16 * suit)) & SUIT_LANE
        every = ((hand[0] | hand[1] | hand[2] | hand[3]) >> (16 * suit)) & SUIT_LANE
        if every == 0:
            continue
        top = msb(every)
        if ((lead | part) >> top) & 1:
            a = popcount(lead)
            b = popcount(part)
            total += a if a > b else b
        else:
            theirs[0] |= (<uint64_t>1) << (16 * suit + top)
    return total


cdef inline int lead_side_max(const State* s, int n, uint64_t* rel) noexcept nogil:
    """An upper bound on the tricks of the leader's side (partnerships, only tricks counting):
    n - 1 when the suits its side tops hold fewer than n tricks, counted as the longer of its
    two hands in each, else n (DDS's LaterTricks in notrump). Winning every trick, the side
    leads every trick, each lead of a suit takes a card of it from both its hands, and a suit
    the opponents top cannot be led until they have discarded its top card. Only their top
    cards are relied on: a suit of the side's that passes to them lowers the count."""
    cdef uint64_t theirs = 0
    if _topped_length(s.hand, s.leader, &theirs) >= n:
        return n
    rel[0] |= theirs
    return n - 1


cdef inline int side_cash(const uint64_t* hand, int L, int need, uint64_t* rel,
                          int qt) noexcept nogil:
    """quick_tricks of a partnership whose seat L is on lead and may lead any card, the
    costlier counts skipped once one reaches ``need`` or when none can; ``qt`` is
    cashable(hand, L, hand[L]), whose reliance ``rel`` already holds."""
    cdef int P = (L + 2) & 3, suit, k
    cdef uint64_t others = hand[(L + 1) & 3] | hand[(L + 3) & 3] | hand[L], lane, crossed = 0
    cdef uint64_t theirs = 0
    if qt >= need:
        return qt
    # No count below exceeds the side's cards in the suits it tops, the longer hand in each
    # (lead_side_max): they count only those, the opponents' cards all kept. (A search needs
    # at most the 12 tricks after the current one; Engine.trick_claim asks for more, to see
    # every count.)
    if need <= 12 and _topped_length(hand, L, &theirs) < need:
        return qt
    for suit in range(4):
        lane = (hand[P] >> (16 * suit)) & SUIT_LANE
        if (hand[L] >> (16 * suit)) & SUIT_LANE and lane \
                and msb(lane) > msb((others >> (16 * suit)) & SUIT_LANE):
            rel[0] |= (<uint64_t>1) << (16 * suit + msb(lane))
            k = cashable(hand, P, hand[P], rel, need)
            if k > qt:
                qt = k
            break
    if qt >= need or not _may_cross(hand, L):
        return qt
    k = cash_then_cross(hand, L, &crossed, need)
    if k > qt:
        qt = k
        rel[0] |= crossed
    if qt >= need:
        return qt
    crossed = 0
    k = cash_discard_cross(hand, L, &crossed, need)
    if k > qt:
        qt = k
        rel[0] |= crossed
    return qt


cdef inline int quick_tricks(const Game* g, const State* s, uint64_t* rel) noexcept nogil:
    """A lower bound on the tricks of the leader's side from here: the leader cashes its top
    cards, or leads a card to a suit its partner tops and the partner cashes its own, or
    cashes some of its own first (cash_then_cross, cash_discard_cross)."""
    cdef int qt, p, suit, partner_qt
    cdef uint64_t leads, partner_lane, others, crossed
    if s.forced_lead >= 0:
        return 0
    leads = legal_mask(g, s, s.leader)
    qt = cashable(s.hand, s.leader, leads, rel)
    if not g.partnership:
        return qt
    p = (s.leader + 2) & 3
    others = s.hand[(s.leader + 1) & 3] | s.hand[(s.leader + 3) & 3] | s.hand[s.leader]
    for suit in range(4):
        partner_lane = (s.hand[p] >> (16 * suit)) & SUIT_LANE
        if (leads >> (16 * suit)) & SUIT_LANE and partner_lane \
                and msb(partner_lane) > msb(((others >> (16 * suit)) & SUIT_LANE)):
            # the partner wins the lead with its top card: one of the tricks it can cash
            rel[0] |= (<uint64_t>1) << (16 * suit + msb(partner_lane))
            partner_qt = cashable(s.hand, p, legal_mask(g, s, p), rel)
            if partner_qt > qt:
                qt = partner_qt
            break
    if leads == s.hand[s.leader] and (g.hearts_break == BREAK_NONE or s.broken) \
            and _may_cross(s.hand, s.leader):
        crossed = 0
        partner_qt = cash_then_cross(s.hand, s.leader, &crossed)
        if partner_qt > qt:
            qt = partner_qt
            rel[0] |= crossed
        crossed = 0
        partner_qt = cash_discard_cross(s.hand, s.leader, &crossed)
        if partner_qt > qt:
            qt = partner_qt
            rel[0] |= crossed
    return qt


cdef inline int _won_then_cashed(const State* s, int hh, uint64_t played, uint64_t won, int need,
                                 uint64_t* rel) noexcept nogil:
    """1 + the quick tricks of seat hh's side, hh on lead, once hh has won this trick with
    ``won`` (a card of its side's on the table or ``played``, which it plays now): what hh
    cashes alone, and when that falls short of ``need``, side_cash, provided its partner's
    card to this trick is known (played already, or its lowest of the suit led, which it
    then plays). Counts stop at ``need``: 1 when the trick alone is enough."""
    cdef uint64_t hand[4]
    cdef uint64_t used = won, more = won, lane
    cdef int i, j, P = (hh + 2) & 3
    cdef bint known = 1
    if need <= 1:
        # the trick alone settles the window
        rel[0] |= won
        return 1
    for i in range(4):
        hand[i] = s.hand[i]
    hand[hh] &= ~played
    if ((P - s.leader) & 3) >= s.ntrick:
        lane = hand[P] & ((<uint64_t>SUIT_LANE) << (16 * (s.trick[0] >> 4)))
        if lane:
            hand[P] &= ~(lane & (~lane + 1))
        else:
            known = 0
    i = 1 + cashable(hand, hh, hand[hh], &used, need - 1)
    if known and i < need:
        more = used
        j = 1 + side_cash(hand, hh, need - 1, &more, i - 1)
        if j > i:
            rel[0] |= more
            return j
    rel[0] |= used
    return i


cdef inline int trick_then_cash(const Game* g, const State* s, int side, int need,
                                uint64_t* rel) noexcept nogil:
    """Tricks ``side`` takes for sure, this trick included, in a trick already led (0 when it
    may lose this trick; after DDS's QuickTricksSecondHand): its card on the table (when its
    seats still to play can play under it), or the highest card of the suit led that its
    seats still to play hold, beats every card of the suit the opponents still to play hold,
    so the trick is theirs; the card's holder, on lead next, then cashes (_won_then_cashed,
    which looks further while the count stays below ``need``), the other cards played to
    this trick only lowering the others'. Only once any card may be led (hearts broken or
    never closed)."""
    cdef int wi = winning_index(s), k, q, wseat, suit, top, best = 0, hh = -1, n
    cdef bint under = 1
    cdef uint64_t opp = 0, ours = 0, lane, bit, r1 = 0, r2 = 0
    if g.hearts_break != BREAK_NONE and not s.broken:
        return 0
    suit = s.trick[0] >> 4
    wseat = (s.leader + wi) & 3
    top = s.trick[wi] & 15
    for k in range(s.ntrick, 4):
        q = (s.leader + k) & 3
        lane = (s.hand[q] >> (16 * suit)) & SUIT_LANE
        if s.side[q] != side:
            opp |= lane
        else:
            ours |= lane
            if lane and ctz(lane) > top:
                under = 0
    if s.side[wseat] == side and under and (opp == 0 or top > msb(opp)):
        # its card on the table stands
        best = _won_then_cashed(s, wseat, 0, (<uint64_t>1) << s.trick[wi], need, &r1)
        if best >= need:
            rel[0] |= r1
            return best
    if ours and msb(ours) > top and (opp == 0 or msb(ours) > msb(opp)):
        bit = (<uint64_t>1) << (16 * suit + msb(ours))
        for k in range(s.ntrick, 4):
            q = (s.leader + k) & 3
            if s.hand[q] & bit:
                hh = q
        n = _won_then_cashed(s, hh, bit, bit, need, &r2)
        if n > best:
            rel[0] |= r2
            return n
    rel[0] |= r1
    return best


cdef inline void _outcomes(const Game* g, const State* s, Outcomes* o, int rp, int rn, int n,
                           bint self_lost, int alpha, int beta) noexcept nogil:
    """The plain bounds of each outcome, from the positive (rp) and negative (rn) values and
    the n tricks the target may still take; ``self_lost``: its own moon is out of reach. When
    only tricks count and no moon is possible, the quick tricks are not counted where the
    leader's side's most tricks (lead_side_max) already settle the window (alpha, beta): the
    search then returns that bound, which the quick tricks could not have settled the other
    way."""
    cdef int tpmin = 0, tpmax = 0, c_self = 0, c_other = 0, qt, most
    cdef uint64_t rel = 0, mrel = 0
    if g.trick_points > 0:
        tpmax = g.trick_points * n
    else:
        tpmin = g.trick_points * n
    o.lo[OUT_NONE] = rn + tpmin
    o.hi[OUT_NONE] = rp + tpmax
    if g.valued_mask == 0 and g.trick_points < 0 and n > 0:
        # only tricks count and everyone wants them: the leader can cash its sure tricks
        most = n
        if g.partnership:
            most = lead_side_max(s, n, &mrel)
            if most < n:
                mrel |= LEADER_DEP
        if (g.moon_total <= 0 or s.moon == MOON_DEAD) and (
                g.trick_points * most >= beta if s.side[s.leader] == s.target
                else g.trick_points * (n - most) <= alpha):
            qt = 0
        else:
            qt = quick_tricks(g, s, &rel)
            if qt > n:
                qt = n
            if qt > 0:
                rel |= LEADER_DEP
        if s.side[s.leader] == s.target:
            o.hi[OUT_NONE] = g.trick_points * qt
            o.rel_hi |= rel
            o.lo[OUT_NONE] = g.trick_points * most
            o.rel_lo |= mrel
        else:
            o.lo[OUT_NONE] = g.trick_points * (n - qt)
            o.rel_lo |= rel
            o.hi[OUT_NONE] = g.trick_points * (n - most)
            o.rel_hi |= mrel
    o.possible[OUT_NONE] = 1
    o.possible[OUT_SELF] = 0
    o.possible[OUT_OTHER] = 0
    if g.moon_total > 0 and s.moon != MOON_DEAD:
        moon_constants(g, &c_self, &c_other)
        # the target shoots: it takes every point still out (rp) and c_self settles the rest
        o.lo[OUT_SELF] = rn + tpmin + c_self + rp
        o.hi[OUT_SELF] = tpmax + c_self + rp
        o.lo[OUT_OTHER] = rn + tpmin + c_other
        o.hi[OUT_OTHER] = tpmax + c_other
        if s.moon == 0:
            o.possible[OUT_SELF] = 1
            o.possible[OUT_OTHER] = 1
        elif s.moon - 1 == s.target:
            o.possible[OUT_SELF] = 1
            o.possible[OUT_NONE] = s.hand_pos > 0
        else:
            o.possible[OUT_OTHER] = 1
            o.possible[OUT_NONE] = s.hand_pos > 0
        if self_lost:
            o.possible[OUT_SELF] = 0


cdef inline bint _settled(const Outcomes* o, int alpha, int beta) noexcept nogil:
    return bound_lo(o, -1) >= beta or bound_hi(o, -1) <= alpha


cdef inline void outcome_bounds(const Game* g, const State* s, Outcomes* o, int alpha,
                                int beta) noexcept nogil:
    """Each outcome's bounds at a trick boundary, in stages that stop once the window (alpha,
    beta) is settled: the plain bounds; those of a target that can win no more tricks; the moon
    block and the duck cap. A later stage only tightens the bounds, and what it relies on (cards,
    and for the second who leads) would narrow the table entry stored from them."""
    cdef int c_self = 0, c_other = 0
    cdef bint shut_out
    cdef uint64_t rel = 0
    o.rel_lo = 0
    o.rel_hi = 0
    o.other_blocked = 0
    o.cap = INF
    _outcomes(g, s, o, s.hand_pos, s.hand_neg, s.cards_left >> 2, 0, alpha, beta)
    if _settled(o, alpha, beta):
        return
    shut_out = target_cannot_win(s, &rel)
    if shut_out:
        # nothing more comes to the target: its value to go is 0, or another side's moon
        o.rel_lo = rel
        o.rel_hi = rel
        _outcomes(g, s, o, 0, 0, 0, s.hand_pos > 0, alpha, beta)
        if _settled(o, alpha, beta):
            return
    if g.moon_total > 0 and s.moon != MOON_DEAD:
        moon_constants(g, &c_self, &c_other)
    # Blocking and ducking (below) are different strategies of the target: the cap, which
    # assumes the target ducks, must still allow another side's moon.
    o.other_blocked = o.possible[OUT_OTHER] and others_cannot_shoot(g, s, &o.rel_hi)
    if not shut_out and target_can_duck(g, s, &o.rel_hi):
        # the target can take nothing more: only nobody's moon or another side's remain
        o.cap = -INF
        if o.possible[OUT_NONE]:
            o.cap = 0
        if o.possible[OUT_OTHER] and c_other > o.cap:
            o.cap = c_other
        if o.possible[OUT_SELF] and s.hand_pos == 0 and c_self > o.cap:
            o.cap = c_self


cdef inline int bound_lo(const Outcomes* o, int skip) noexcept nogil:
    """Lowest value over the possible outcomes, leaving out outcome ``skip`` (or -1)."""
    cdef int k, r = INF
    if not (o.possible[OUT_SELF] | o.possible[OUT_OTHER]):
        # no moon (bridge play, or a dead moon): the common case, at once
        return o.lo[OUT_NONE] if o.possible[OUT_NONE] and skip != OUT_NONE else INF
    for k in range(3):
        if o.possible[k] and k != skip and o.lo[k] < r:
            r = o.lo[k]
    return r


cdef inline int bound_hi(const Outcomes* o, int skip) noexcept nogil:
    cdef int k, r = -INF
    if not (o.possible[OUT_SELF] | o.possible[OUT_OTHER]):
        return o.hi[OUT_NONE] if o.possible[OUT_NONE] and skip != OUT_NONE else -INF
    for k in range(3):
        if o.possible[k] and k != skip and o.hi[k] > r:
            r = o.hi[k]
    return r


ctypedef struct TrickFacts:
    int wc             # the card winning the trick so far
    int must_win       # a seat of the target's side still to play holds nothing legal below it
    int can_win        # a seat of the target's side still to play holds a card above it
    int final          # no seat of another side still to play holds a card above it
    int follows        # the target's side follows suit (has played, or holds, the suit led)
    int forced         # the least valued legal card, summed over the seats still to play
                       # that hold only point cards (a seat of the target's side ducking: of
                       # its cards below the winning one)


cdef inline void trick_facts(const Game* g, const State* s, uint64_t suit,
                             TrickFacts* f) noexcept nogil:
    """What the rules inside a trick (trick_lost, shot_lost) need to know of it."""
    cdef int k, q, least, led = s.trick[0] >> 4
    cdef bint mine
    cdef uint64_t lane, legal
    f.wc = s.trick[s.win]
    f.must_win = f.can_win = f.follows = f.forced = 0
    f.final = 1
    for k in range(s.ntrick):
        if s.side[(s.leader + k) & 3] == s.target and (s.trick[k] >> 4) == led:
            f.follows = 1
    for k in range(s.ntrick, 4):
        q = (s.leader + k) & 3
        mine = s.side[q] == s.target
        lane = s.hand[q] & suit
        if lane:
            f.follows |= mine
            if msb(lane) > f.wc:
                if mine:
                    f.can_win = 1
                    # it could take the trick, and ducks instead
                    lane &= ((<uint64_t>1) << f.wc) - 1
                else:
                    f.final = 0
            legal = lane
        else:
            legal = s.hand[q]
        if s.first_trick:
            # trick 1 may hold back valued cards
            legal &= legal_mask(g, s, q)
        if not legal:
            f.must_win = 1
        elif not legal & ~g.point_mask:
            least = INF
            while legal:
                if g.values[ctz(legal)] < least:
                    least = g.values[ctz(legal)]
                legal &= legal - 1
            f.forced += least


cdef inline bint trick_lost(const Game* g, const State* s, int alpha, int* hi,
                            uint64_t* rel) noexcept nogil:
    """Inside a trick (Hearts rules) that the target's side need not take, after which no other
    side's moon is possible: an upper bound on the value to go, in ``hi``. The trick's cards go
    to another side, and each seat still to play gives up to it at least its least valued
    legal card (a heart, when it must follow hearts): that settles the trick's last plays
    where the points still held, less those, fit under ``alpha``, without visiting each of the
    positions that end the trick. Returns 0 where it does not apply, and (cheaply, not in
    every case) where it cannot settle alpha.

    The target's side need not take the trick when the winning card is another side's and each
    of its seats still to play holds none above it, or one below it (it ducks). Where the
    target's side follows suit, or the moon dies only because a given seat takes the trick,
    that relies on who holds the cards from the winning one up (``rel``), and only once no other
    seat can overtake it: searched, the trick's ends would rely on the card that wins in the
    end, often a higher one (relying on the card winning so far cost 14 % more nodes)."""
    cdef TrickFacts f
    cdef bint by_rank
    cdef int wside
    cdef uint64_t suit = <uint64_t>SUIT_LANE << (16 * (s.trick[0] >> 4))
    hi[0] = s.hand_pos
    if g.trick_points > 0:
        hi[0] += g.trick_points * ((s.cards_left - (4 - s.ntrick)) >> 2)
    if hi[0] > alpha and not (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & suit & g.point_mask:
        # only a seat following with a point card, or a void one holding nothing but valued
        # cards (too rare to look for), could lower the bound
        return 0
    wside = s.side[(s.leader + s.win) & 3]
    if wside == s.target or (g.moon_total > 0 and s.moon == 0):
        return 0
    trick_facts(g, s, suit, &f)
    if f.must_win:
        return 0
    by_rank = f.follows
    if g.moon_total > 0 and s.moon != MOON_DEAD and s.moon - 1 != s.target:
        # another side has taken every point card so far: its moon must die with this trick,
        # which carries one to a seat of a third side (the target's own moon would only lower
        # the value)
        if (wside == s.moon - 1
                or (f.forced == 0 and not s.on_table & g.point_mask)):
            return 0
        by_rank = 1
    if by_rank and not f.final:
        return 0
    hi[0] -= f.forced
    rel[0] = (<uint64_t>1) << f.wc if by_rank else 0
    return 1


cdef inline bint shot_lost(const Game* g, const State* s, uint64_t* rel) noexcept nogil:
    """Inside a trick, the target's side seeking to take every point card: the trick carries
    one (on the table, or one a seat still to play must follow with, holding nothing else
    legal) and the target's side cannot take it: another side's card wins, and no seat of the
    target's side still to play holds one above it. Where the target's side follows suit this
    relies on who holds the cards from the winning one up (``rel``)."""
    cdef TrickFacts f
    if s.side[(s.leader + s.win) & 3] == s.target:
        return 0
    trick_facts(g, s, <uint64_t>SUIT_LANE << (16 * (s.trick[0] >> 4)), &f)
    if f.can_win or (f.forced == 0 and not s.on_table & g.point_mask):
        return 0
    rel[0] = (<uint64_t>1) << f.wc if f.follows else 0
    return 1
