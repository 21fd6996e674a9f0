# Transposition table with partition-search entries: an entry stands for every position that
# agrees with the one searched on what the search relied on, not just that one position.
#
# A position at a trick boundary is split in two. The "shape" (hashed, matched exactly) holds
# each hand's length in each suit, where the special-valued cards sit in each suit's order
# (see Game), and the state flags. The "pattern" holds, per suit, the owners of the remaining
# cards from the top down. An entry keeps only the top k owners of each suit, k reaching down
# to the lowest card whose rank the search relied on (a trick won by rank, a bound that
# compared ranks; special cards always count). Below that card, any deal of the same lengths
# plays the same, as in DDS's "winning ranks" and Ginsberg's partition search.
from libc.stdint cimport uint64_t, uint32_t, uint16_t, int16_t, uint8_t, int8_t
from solver._state cimport Game, State, popcount, ctz, SUIT_LANE, INF

cdef enum:
    BUCKET = 64                  # entries a bucket (tag_matches in _ttable.pyx assumes 64)
    KIND_SCORE = 0
    KIND_MOON = 1
    KIND_HELPED_MOON = 2         # + the side blocking it (see moon_search)
    NARROWED = 8                 # added to a kind: a narrowed search's own entries, kept apart
                                 # (see Engine.value); kinds stay below 16, 4 bits of the keys
    TOP_KEYED = 2                # owners of this many top cards of each suit are always matched
                                 # (Table.top_keyed: 1 in some suits)
    DEEP_KEYED = 3               # see Table.crowded
    # pattern word: owners of the top k cards (2 bits a card, top card highest) | k << K_SHIFT
    # | r << R_SHIFT, where r < 3 says k was raised to top_keyed from r cards relied on
    K_SHIFT = 26
    R_SHIFT = 30

ctypedef struct Entry:
    uint32_t check               # bits 0-15 and 32-47 of the check: a hash of the shape and
                                 # the top TOP_KEYED owners of each suit (filed deep: see
                                 # Table.crowded), which spread the positions of one shape over
                                 # buckets.
                                 # The shape is matched by this hash alone: the tag holds bits
                                 # 49-63 and the bucket the top bits of 0-31, so nearly all 64
                                 # bits are compared, and an entry takes 28 bytes
    uint32_t pattern[4]
    int16_t lo
    int16_t hi
    int8_t best                  # best card found at this node, or -1
    uint8_t work                 # bit length of the nodes its search took: costly entries
                                 # are kept over cheap ones (keeping deep ones instead cost 82 %
                                 # more nodes on a deal that overflows the table)
    uint8_t gen                  # entries of an older generation count as empty
    uint8_t pad

ctypedef struct Key:
    uint64_t check
    uint64_t shape[5]            # what check hashes besides the owners: each suit's lengths and
                                 # special cards, then the state flags (for _deep_check)
    uint32_t seq[4]              # owners of the suit's remaining cards, top card highest
    int cnt[4]                   # remaining cards of the suit
    uint64_t rem                 # every card still in a hand
    uint64_t always              # cards every entry relies on: the special cards present, and
                                 # every card during trick 1

ctypedef struct Exact:
    uint64_t hash                # the whole position (four hands and the state flags)
    uint64_t rel_lo              # what the bounds rely on, as the search returned it
    uint64_t rel_hi
    int16_t lo
    int16_t hi
    int8_t best
    uint8_t gen
    uint16_t pad

ctypedef struct Bucket:
    uint16_t tags[BUCKET]        # per entry: 16 bits of its check, 0 when empty: two cache
                                 # lines, so a probe reads few entries
    Entry entries[BUCKET]        # next to their tags, so that a probe's reads share pages;
                                 # 64 entries of 28 bytes keep a bucket whole cache lines, so
                                 # every bucket's tags are aligned for tag_matches' loads

ctypedef struct Table:
    Bucket* buckets              # cache-line aligned in ``block``
    void* block
    uint64_t nbuckets
    uint8_t* crowded             # per bucket: the generation in which entries of one check
                                 # filled it. An entry of such a bucket that matches at least
                                 # DEEP_KEYED owners of every suit but the shortest is filed by
                                 # them (its deep check) in another bucket, and probes look there
                                 # too: one shape can have thousands of entries. (Every suit:
                                 # 10 % more time on the deal that overflows the table most.)
    Exact* exact                 # a direct-mapped cache of whole positions in front of the
                                 # buckets: most probes repeat a position seen a moment ago
    uint64_t exact_mask
    int top_keyed[4]             # owners of this many top cards of the suit always matched
                                 # and hashed: TOP_KEYED, or 1 in bridge play and in the suits
                                 # that hold valued cards, where entries that rely on a card
                                 # fewer pay (bridge 11 % fewer nodes, Hearts 2-3 %; 1 in every
                                 # suit costs Hearts 4.5 %: its buckets crowd)
    uint64_t suit_hands[4]       # the last key's suits: each suit's four hands (13 bits a
    uint32_t suit_seq[4]         # hand), with what make_key worked out from them, which the
    int suit_cnt[4]              # next key reuses for the suits the trick between did not
    uint64_t suit_word[4]        # touch
    uint64_t suit_always[4]
    uint8_t gen                  # clearing the table starts a new generation
    uint8_t* locks               # spin locks of the buckets (LOCKS, a bucket's index modulo),
                                 # when engines in several threads share the buckets; else NULL
    int owner                    # whether this Table allocated the buckets (else it shares
                                 # another's, with its own whole-position cache and suit cache)

cdef int tt_init(Table* t, size_t max_bytes) noexcept nogil
cdef void tt_free(Table* t) noexcept nogil
cdef int tt_share(Table* t, Table* owner) noexcept nogil
cdef void tt_follow(Table* t, const Table* owner) noexcept nogil
cdef void tt_clear(Table* t) noexcept nogil
cdef void tt_touch(Table* t) noexcept nogil
cdef int tt_probe(Table* t, const Key* k, int* lo, int* hi, int* best,
                  uint64_t* rel_lo, uint64_t* rel_hi, int alpha, int beta) noexcept nogil
cdef void tt_store(Table* t, const Key* k, uint64_t rel, int lo, int hi, int best,
                   int work) noexcept nogil
cdef uint64_t tt_rel(const Entry* e, const Key* k) noexcept nogil
cdef void make_key(Table* t, const Game* g, const State* s, int kind, Key* k) noexcept nogil
cdef uint64_t exact_hash(const State* s, int kind) noexcept nogil
cdef int ex_probe(const Table* t, uint64_t h, int* lo, int* hi, int* best,
                  uint64_t* rel_lo, uint64_t* rel_hi) noexcept nogil
cdef void ex_store(Table* t, uint64_t h, int lo, int hi, int best, uint64_t rel_lo,
                   uint64_t rel_hi) noexcept nogil
