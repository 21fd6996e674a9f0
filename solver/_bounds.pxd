# Quick bounds on the value to go at a trick boundary, from what is still to be won.
from libc.stdint cimport uint64_t
from solver._state cimport Game, State, ctz, MOON_ADD, MOON_SUBTRACT, MOON_DEAD, INF


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


cdef inline void quick_bounds(const Game* g, const State* s, int* lo, int* hi) noexcept nogil:
    """Every outcome's value to go lies in [lo, hi]: no moon, the target shoots, another shoots."""
    cdef uint64_t rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef uint64_t m = rem & g.valued_mask
    cdef int rp = 0, rn = 0, c, v, n = s.cards_left >> 2
    cdef int tpmin = 0, tpmax = 0, c_self, c_other, l, h
    cdef int can_none = 1, can_self = 0, can_other = 0
    while m:
        c = ctz(m)
        m &= m - 1
        v = g.values[c]
        if v > 0:
            rp += v
        else:
            rn += v
    if g.trick_points > 0:
        tpmax = g.trick_points * n
    else:
        tpmin = g.trick_points * n
    l = rn + tpmin
    h = rp + tpmax
    if g.moon_total > 0 and s.moon != MOON_DEAD:
        moon_constants(g, &c_self, &c_other)
        if s.moon == 0:
            can_self = 1
            can_other = 1
        elif s.moon - 1 == s.target:
            can_self = 1
            can_none = rp > 0
        else:
            can_other = 1
            can_none = rp > 0
        if not can_none:
            l = INF
            h = -INF
        if can_self:
            l = min(l, rn + tpmin + c_self + rp)
            h = max(h, tpmax + c_self + rp)
        if can_other:
            l = min(l, rn + tpmin + c_other)
            h = max(h, tpmax + c_other)
    lo[0] = l
    hi[0] = h
