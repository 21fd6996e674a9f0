# Transposition table: bounds on the value to go, stored at trick boundaries, with a size cap.
from libc.stdint cimport uint64_t, int16_t, uint8_t, int8_t
from solver._state cimport Game, State, popcount, msb, SUIT_LANE

cdef enum:
    KEY_WORDS = 5
    BUCKET = 4
    KIND_SCORE = 0
    KIND_MOON = 1

ctypedef struct Entry:
    uint64_t key[5]
    int16_t lo
    int16_t hi
    int8_t best                  # best card found at this node, or -1
    uint8_t depth                # cards left: deeper entries are kept over shallow ones
    uint8_t gen                  # entries of an older generation count as empty
    uint8_t pad

ctypedef struct Table:
    Entry* entries
    uint64_t nbuckets            # a power of two
    uint8_t gen
    long long probes
    long long hits
    long long stores

cdef int tt_init(Table* t, size_t max_bytes) noexcept nogil
cdef void tt_free(Table* t) noexcept nogil
cdef void tt_clear(Table* t) noexcept nogil
cdef Entry* tt_probe(Table* t, const uint64_t* key) noexcept nogil
cdef void tt_store(Table* t, const uint64_t* key, int lo, int hi, int best, int depth) noexcept nogil


cdef inline void make_key(const Game* g, const State* s, int kind, uint64_t* key) noexcept nogil:
    """Key of a position at a trick boundary. Per suit: the owners of the remaining cards from
    the top down and their count, so cards below everything still in play are forgotten, plus
    the places of the suit's special-valued cards in that order. Suits with many specials are
    keyed absolutely (3 bits a rank: gone or owner)."""
    cdef int suit, r, k, cnt, bit
    cdef uint64_t h0, h1, h2, h3, rem, w, seq, owner, m
    for suit in range(4):
        h0 = (s.hand[0] >> (16 * suit)) & SUIT_LANE
        h1 = (s.hand[1] >> (16 * suit)) & SUIT_LANE
        h2 = (s.hand[2] >> (16 * suit)) & SUIT_LANE
        h3 = (s.hand[3] >> (16 * suit)) & SUIT_LANE
        rem = h0 | h1 | h2 | h3
        w = 0
        if g.suit_absolute[suit]:
            for r in range(13):
                if (rem >> r) & 1:
                    owner = (((h1 | h3) >> r) & 1) | ((((h2 | h3) >> r) & 1) << 1)
                    w |= (owner + 1) << (3 * r)
        else:
            seq = 0
            cnt = 0
            m = rem
            while m:
                r = msb(m)
                m &= ~((<uint64_t>1) << r)
                owner = (((h1 | h3) >> r) & 1) | ((((h2 | h3) >> r) & 1) << 1)
                seq = (seq << 2) | owner
                cnt += 1
            w = seq | (<uint64_t>cnt << 26)
            for k in range(g.nspecial[suit]):
                bit = g.special[suit][k] & 15
                if (rem >> bit) & 1:
                    w |= (<uint64_t>(popcount(rem >> (bit + 1)) + 1)) << (32 + 4 * k)
        key[suit] = w
    key[4] = (<uint64_t>s.leader | (<uint64_t>s.broken << 2) | (<uint64_t>s.moon << 3)
              | (<uint64_t>s.target << 6) | (<uint64_t>kind << 8) | (<uint64_t>s.first_trick << 10))
