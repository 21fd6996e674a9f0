# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Transposition table: buckets of entries of one shape, each matched by its pattern; bounds
merged when the pattern is the same, cheap and old entries replaced first."""
from libc.stdlib cimport calloc, free
from libc.string cimport memset, memmove
from libc.stdint cimport uint64_t, uint32_t, uint16_t, uint8_t

cdef extern from *:
    """
    #include <sys/mman.h>
    static inline void hdd_hugepages(void* p, size_t n) {
    #ifdef MADV_HUGEPAGE
        size_t a = ((size_t)p + (1u << 21) - 1) & ~(size_t)((1u << 21) - 1);
        if (a < (size_t)p + n)
            madvise((void*)a, ((size_t)p + n - a) & ~(size_t)((1u << 21) - 1), MADV_HUGEPAGE);
    #endif
    }
    """
    void hdd_hugepages(void* p, size_t n) noexcept nogil

cdef extern from *:
    """
    static inline void hdd_prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }
    """
    void prefetch "hdd_prefetch"(const void* p) noexcept nogil

cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* Bit i set where tags[i] == tag, over a bucket's 64 tags (64-byte aligned). */
    static inline unsigned long long hdd_tag_matches(const unsigned short* tags,
                                                     unsigned short tag) {
        unsigned long long m = 0;
        int j;
    #if defined(__SSE2__)
        const __m128i t = _mm_set1_epi16((short)tag);
        const __m128i* p = (const __m128i*)tags;
        for (j = 0; j < 4; j++) {
            __m128i a = _mm_cmpeq_epi16(_mm_load_si128(p + 2 * j), t);
            __m128i b = _mm_cmpeq_epi16(_mm_load_si128(p + 2 * j + 1), t);
            m |= (unsigned long long)(unsigned)_mm_movemask_epi8(_mm_packs_epi16(a, b)) << (16 * j);
        }
    #else
        for (j = 0; j < 64; j++)
            m |= (unsigned long long)(tags[j] == tag) << j;
    #endif
        return m;
    }
    """
    uint64_t tag_matches "hdd_tag_matches"(const uint16_t* tags, uint16_t tag) noexcept nogil

cdef extern from *:
    """
    static inline void hdd_lock(unsigned char* p) {
        while (__atomic_test_and_set(p, __ATOMIC_ACQUIRE))
            while (__atomic_load_n(p, __ATOMIC_RELAXED)) {
    #if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
    #endif
            }
    }
    static inline void hdd_unlock(unsigned char* p) { __atomic_clear(p, __ATOMIC_RELEASE); }
    """
    void spin_lock "hdd_lock"(uint8_t* p) noexcept nogil
    void spin_unlock "hdd_unlock"(uint8_t* p) noexcept nogil

cdef enum:
    LOCKS = 1 << 16              # bucket locks of a shared table: 64 KB, mostly in cache
    WORK_WEIGHT = 8              # a bit of an entry's work (Entry.work) outweighs this many
                                 # places of age in its bucket when choosing whom to replace
    OWN_MASK = (1 << K_SHIFT) - 1
    EXACT_MAX = 1 << 13          # whole-position cache entries: 256 KB, small enough to stay in
                                 # the processor's cache (larger ones were slower)


cdef inline uint64_t _mix(uint64_t h, uint64_t w) noexcept nogil:
    """``w`` mixed into the hash ``h`` (SplitMix64's finaliser): every bit of either reaches
    every bit of the result. One multiply and one shift let the high bits (the clubs) reach
    few others, and different positions shared hashes (one in about 1,400 of the positions
    of one card a hand from two suits): the whole-position cache took one for the other."""
    h ^= w
    h ^= h >> 30
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    h ^= h >> 27
    h *= <uint64_t>0x94D049BB133111EBULL
    h ^= h >> 31
    return h


# Lookup tables for the owner sequences: _C7/_C6 squeeze the bits of x at the places of the
# remaining cards together (7 low ranks, 6 high ranks), _S7 spreads 7 bits to every other bit.
cdef uint8_t _C7[128 * 128]
cdef uint8_t _C6[64 * 64]
cdef uint16_t _S7[128]
cdef uint8_t _SEL7[128 * 8]      # _SEL7[x * 8 + j]: place of the (j+1)-th highest bit set in x


def _fill_tables() -> None:
    cdef int r, x, i, n, out, b
    for r in range(128):
        for x in range(128):
            out = n = 0
            for i in range(7):
                if (r >> i) & 1:
                    out |= ((x >> i) & 1) << n
                    n += 1
            _C7[r * 128 + x] = out
            if r < 64 and x < 64:
                _C6[r * 64 + x] = out
    for x in range(128):
        _S7[x] = sum(((x >> i) & 1) << (2 * i) for i in range(7))
        n = 0
        for b in range(6, -1, -1):
            if (x >> b) & 1:
                _SEL7[x * 8 + n] = b
                n += 1


_fill_tables()


cdef inline uint32_t _squeeze(uint64_t x, uint64_t rem) noexcept nogil:
    """The bits of x at the remaining cards, in order (lowest remaining card at bit 0)."""
    return (_C7[(rem & 127) * 128 + (x & 127)]
            | (<uint32_t>_C6[(rem >> 7) * 64 + ((x >> 7) & 63)] << popcount(rem & 127)))


cdef inline uint32_t _spread(uint32_t x) noexcept nogil:
    return _S7[x & 127] | (<uint32_t>_S7[x >> 7] << 14)


cdef inline uint64_t _owners(uint64_t h0, uint64_t h1, uint64_t h2, uint64_t h3, uint64_t rem,
                             Key* k, int suit) noexcept nogil:
    """A suit's owner sequence (two bits a card, top card highest: seat & 1, then seat >> 1)
    and card count into the key; returns the seats' lengths, 4 bits each."""
    cdef int cnt = popcount(rem)
    k.seq[suit] = _spread(_squeeze(h1 | h3, rem)) | (_spread(_squeeze(h2 | h3, rem)) << 1)
    k.cnt[suit] = cnt
    return (<uint64_t>popcount(h0) | (<uint64_t>popcount(h1) << 4)
            | (<uint64_t>popcount(h2) << 8) | (<uint64_t>popcount(h3) << 12))


cdef inline uint64_t _mix_suit(uint64_t h, Key* k, int suit, uint64_t w, int top) noexcept nogil:
    """Hash the suit's shape word and its ``top`` top owners (Table.top_keyed)."""
    cdef int cnt = k.cnt[suit]
    cdef int j = cnt if cnt < top else top
    k.shape[suit] = w
    return _mix(h, w | (<uint64_t>(k.seq[suit] >> (2 * (cnt - j))) << 52))


cdef void make_key(Table* t, const Game* g, const State* s, int kind, Key* k) noexcept nogil:
    """Shape hash and per-suit owner sequences of a position at a trick boundary. A suit whose
    hands are those of the last key's reuses its sequence and shape word."""
    cdef int suit, r, j, bit
    cdef uint64_t h0, h1, h2, h3, rem, w, owner, hands, always
    cdef uint64_t h = <uint64_t>0x9E3779B97F4A7C15ULL
    k.rem = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    # trick 1 has rules about particular cards (the forced lead): match it exactly
    k.always = k.rem if s.first_trick else 0
    for suit in range(4):
        h0 = (s.hand[0] >> (16 * suit)) & SUIT_LANE
        h1 = (s.hand[1] >> (16 * suit)) & SUIT_LANE
        h2 = (s.hand[2] >> (16 * suit)) & SUIT_LANE
        h3 = (s.hand[3] >> (16 * suit)) & SUIT_LANE
        hands = h0 | (h1 << 13) | (h2 << 26) | (h3 << 39)
        if hands == t.suit_hands[suit]:
            k.seq[suit] = t.suit_seq[suit]
            k.cnt[suit] = t.suit_cnt[suit]
            k.always |= t.suit_always[suit]
            h = _mix_suit(h, k, suit, t.suit_word[suit], t.top_keyed[suit])
            continue
        rem = h0 | h1 | h2 | h3
        always = 0
        if g.keyed_exactly == 0:
            # no special cards, no absolute suits (bridge play): owners and lengths only
            w = _owners(h0, h1, h2, h3, rem, k, suit)
        elif g.suit_absolute[suit]:
            # too many specials to place: the suit is matched card by card
            w = 0
            for r in range(13):
                if (rem >> r) & 1:
                    owner = (((h1 | h3) >> r) & 1) | ((((h2 | h3) >> r) & 1) << 1)
                    w |= (owner + 1) << (3 * r)
            k.seq[suit] = 0
            k.cnt[suit] = 0
        else:
            w = _owners(h0, h1, h2, h3, rem, k, suit)
            for j in range(g.nspecial[suit]):
                bit = g.special[suit][j] & 15
                if (rem >> bit) & 1:
                    always |= (<uint64_t>1) << (16 * suit + bit)
                    w |= (<uint64_t>(popcount(rem >> (bit + 1)) + 1)) << (16 + 4 * j)
        t.suit_hands[suit] = hands
        t.suit_seq[suit] = k.seq[suit]
        t.suit_cnt[suit] = k.cnt[suit]
        t.suit_word[suit] = w
        t.suit_always[suit] = always
        k.always |= always
        h = _mix_suit(h, k, suit, w, t.top_keyed[suit])
    # the forced lead too: the engine takes it apart from the hands, and during trick 1 a free
    # lead's entry answered a forced one's position (every card matched, the lead not)
    w = (<uint64_t>s.leader | (<uint64_t>s.broken << 2) | (<uint64_t>s.moon << 3)
         | (<uint64_t>s.target << 6) | (<uint64_t>kind << 8) | (<uint64_t>s.first_trick << 12)
         | (<uint64_t>(s.forced_lead + 1) << 13))
    k.shape[4] = w
    k.check = _mix(h, w)


cdef inline int _shortest(const Key* k) noexcept nogil:
    """The suit with the fewest cards left (of equals, the highest)."""
    cdef int suit, fewest = 0
    for suit in range(1, 4):
        if k.cnt[suit] <= k.cnt[fewest]:
            fewest = suit
    return fewest


cdef inline uint64_t _deep_check(const Table* t, const Key* k, int fewest) noexcept nogil:
    """The check of entries filed deep: the shape, the top DEEP_KEYED owners of each suit but
    the shortest (``fewest``, from _shortest), and the top keyed owners of that one (see
    Table.crowded)."""
    cdef uint64_t h = <uint64_t>0xD1B54A32D192ED03ULL
    cdef int suit, j
    for suit in range(4):
        j = t.top_keyed[suit] if suit == fewest else DEEP_KEYED
        if k.cnt[suit] < j:
            j = k.cnt[suit]
        h = _mix(h, k.shape[suit] | (<uint64_t>(k.seq[suit] >> (2 * (k.cnt[suit] - j))) << 52))
    return _mix(h, k.shape[4])


cdef inline bint _matches(const Entry* e, const Key* k) noexcept nogil:
    cdef int suit, kk
    cdef uint32_t p
    for suit in range(4):
        p = e.pattern[suit]
        kk = (p >> K_SHIFT) & 15
        if (k.seq[suit] >> (2 * (k.cnt[suit] - kk))) != (p & OWN_MASK):
            return 0
    return 1


cdef uint64_t tt_rel(const Entry* e, const Key* k) noexcept nogil:
    """The cards an entry relies on, in the probed position: per suit, its k-th highest
    remaining card (the ones above it are implied)."""
    cdef uint64_t rel = 0, m
    cdef int suit, kk, top
    for suit in range(4):
        kk = e.pattern[suit] >> R_SHIFT
        if kk == 3:
            kk = (e.pattern[suit] >> K_SHIFT) & 15
        if kk == 0:
            continue
        m = (k.rem >> (16 * suit)) & SUIT_LANE
        # the kk-th highest card is among ranks 6-12 if that many lie there, else among 0-5
        top = popcount(m >> 6)
        if kk <= top:
            rel |= (<uint64_t>1) << (16 * suit + 6 + _SEL7[(m >> 6) * 8 + kk - 1])
        else:
            rel |= (<uint64_t>1) << (16 * suit + _SEL7[(m & 63) * 8 + kk - 1 - top])
    return rel


cdef inline uint16_t _tag(uint64_t check) noexcept nogil:
    return <uint16_t>(check >> 48) | 1


cdef inline uint32_t _stored(uint64_t check) noexcept nogil:
    """The bits of a check an entry keeps (see Entry.check)."""
    return <uint32_t>(check & 0xFFFF) | <uint32_t>((check >> 16) & 0xFFFF0000ULL)


cdef inline uint64_t _bucket(const Table* t, uint64_t check) noexcept nogil:
    """Bucket of a check: its low 32 bits scaled to the bucket count (any count, not only
    powers of two, so the table fills its budget); the tag takes the high bits."""
    return ((check & 0xFFFFFFFFULL) * t.nbuckets) >> 32


cdef int tt_init(Table* t, size_t max_bytes) noexcept nogil:
    cdef uint64_t n, nexact = 1
    cdef int i
    cdef void* p = NULL
    cdef void* x = NULL
    cdef void* c = NULL
    # the whole-position cache: a power of two, at most a quarter of the budget
    while nexact < EXACT_MAX and 2 * nexact * sizeof(Exact) <= max_bytes // 4:
        nexact *= 2
    n = 1       # at least one bucket, however small the budget (below the cache's size too)
    if max_bytes > nexact * sizeof(Exact):
        n = max(1, (max_bytes - nexact * sizeof(Exact)) // (sizeof(Bucket) + 1))
    # calloc gets large blocks zeroed by the system, page by page as they are first touched:
    # a small search in a big table touches few of them
    p = calloc(n * sizeof(Bucket) + 64, 1)
    x = calloc(nexact, sizeof(Exact))
    c = calloc(n, 1)
    if p == NULL or x == NULL or c == NULL:
        free(p)
        free(x)
        free(c)
        return -1
    t.crowded = <uint8_t*>c
    t.exact = <Exact*>x
    t.exact_mask = nexact - 1
    t.block = p
    t.buckets = <Bucket*>((<size_t>p + 63) & ~(<size_t>63))
    t.nbuckets = n
    t.gen = 1
    for i in range(4):
        t.top_keyed[i] = TOP_KEYED
    memset(t.suit_hands, 0xFF, sizeof(t.suit_hands))  # no hands of 52 bits match
    t.locks = NULL
    t.owner = 1
    return 0


cdef int tt_share(Table* t, Table* owner) noexcept nogil:
    """Make ``t`` (not yet initialised) use the buckets of ``owner``, which from now on lock:
    engines in other threads then share what each learns. ``t`` keeps its own whole-position
    cache and suit cache, which are per search."""
    cdef void* x
    if owner.locks == NULL:
        owner.locks = <uint8_t*>calloc(LOCKS, 1)
        if owner.locks == NULL:
            return -1
    x = calloc(owner.exact_mask + 1, sizeof(Exact))
    if x == NULL:
        return -1
    t[0] = owner[0]
    t.exact = <Exact*>x
    t.owner = 0
    memset(t.suit_hands, 0xFF, sizeof(t.suit_hands))
    return 0


cdef void tt_follow(Table* t, const Table* owner) noexcept nogil:
    """A sharing table takes up its owner's generation (after the owner was cleared)."""
    if t.gen != owner.gen:
        memset(t.exact, 0, (t.exact_mask + 1) * sizeof(Exact))
        t.gen = owner.gen


cdef void tt_touch(Table* t) noexcept nogil:
    """Write the whole table (as empty), so that the system maps its pages now: a fresh table's
    first searches otherwise spend much of their time on page faults. The pages are 2 MB ones
    where the system allows, so that probes seldom miss the TLB; only here, as a table that is
    not touched first would zero a whole 2 MB page for each small search's first probes."""
    hdd_hugepages(t.block, t.nbuckets * sizeof(Bucket) + 64)
    memset(t.buckets, 0, t.nbuckets * sizeof(Bucket))
    memset(t.exact, 0, (t.exact_mask + 1) * sizeof(Exact))
    memset(t.crowded, 0, t.nbuckets)
    t.gen = 1


cdef void tt_free(Table* t) noexcept nogil:
    if t.owner:
        free(t.block)
        free(t.crowded)
        free(t.locks)
    free(t.exact)
    t.locks = NULL
    t.exact = NULL
    t.crowded = NULL
    t.block = NULL
    t.buckets = NULL


cdef void tt_clear(Table* t) noexcept nogil:
    """A new generation: cheap, so that a batch of small searches may clear between positions."""
    cdef uint64_t i
    if t.gen == 255:
        for i in range(t.nbuckets):
            memset(t.buckets[i].tags, 0, sizeof(t.buckets[i].tags))
        memset(t.exact, 0, (t.exact_mask + 1) * sizeof(Exact))
        memset(t.crowded, 0, t.nbuckets)
        t.gen = 0
    t.gen += 1


cdef inline bint _settled(int lo, int hi, int alpha, int beta) noexcept nogil:
    """Whether bounds answer a search of the window (alpha, beta): the entries left unread
    could only tighten a bound that already cuts (a crowded bucket holds dozens of one shape)."""
    return lo >= beta or hi <= alpha or lo == hi


cdef inline int _probe_bucket(Table* t, const Key* k, uint64_t bucket, uint64_t check,
                              int* lo, int* hi, int* best, const Entry** elo,
                              const Entry** ehi, int alpha, int beta) noexcept nogil:
    """Tighten lo/hi with the bucket's matching entries, newest first, until they settle the
    window; elo/ehi get the entries that did."""
    cdef Entry* b = t.buckets[bucket].entries
    cdef uint16_t* tb = t.buckets[bucket].tags
    cdef uint16_t tag = _tag(check)
    cdef uint32_t stored = _stored(check)
    cdef int i, found = 0
    cdef uint64_t m = tag_matches(tb, tag)
    while m:
        i = ctz(m)
        m &= m - 1
        if b[i].check != stored or b[i].gen != t.gen or not _matches(&b[i], k):
            continue
        found += 1
        if b[i].lo > lo[0]:
            lo[0] = b[i].lo
            elo[0] = &b[i]
        if b[i].hi < hi[0]:
            hi[0] = b[i].hi
            ehi[0] = &b[i]
        if best[0] < 0:
            best[0] = b[i].best
        if _settled(lo[0], hi[0], alpha, beta):
            break
    return found


cdef int tt_probe(Table* t, const Key* k, int* lo, int* hi, int* best,
                  uint64_t* rel_lo, uint64_t* rel_hi, int alpha, int beta) noexcept nogil:
    """Tighten lo/hi with the matching entries until they settle the window (alpha, beta);
    rel_lo/rel_hi get the cards the lower and upper bounds kept rely on. Returns the number of
    matches read."""
    cdef uint64_t bucket = _bucket(t, k.check), deep = 0, deep_check = 0, l1 = 0, l2 = 0
    cdef int found
    cdef const Entry* elo = NULL
    cdef const Entry* ehi = NULL
    if t.crowded[bucket] == t.gen:
        # both buckets' tag lines on their way at once
        deep_check = _deep_check(t, k, _shortest(k))
        deep = _bucket(t, deep_check)
        prefetch(t.buckets[deep].tags)
        prefetch(t.buckets[deep].tags + 32)
    if t.locks != NULL:
        l1 = bucket & (LOCKS - 1)
        l2 = deep & (LOCKS - 1) if deep_check else l1
        if l2 < l1:
            l1, l2 = l2, l1
        spin_lock(t.locks + l1)
        if l2 != l1:
            spin_lock(t.locks + l2)
    found = _probe_bucket(t, k, bucket, k.check, lo, hi, best, &elo, &ehi, alpha, beta)
    if deep_check and not _settled(lo[0], hi[0], alpha, beta):
        found += _probe_bucket(t, k, deep, deep_check, lo, hi, best, &elo, &ehi, alpha, beta)
    if elo != NULL:
        rel_lo[0] = tt_rel(elo, k)
    if ehi != NULL:
        rel_hi[0] = tt_rel(ehi, k)
    if t.locks != NULL:
        if l2 != l1:
            spin_unlock(t.locks + l2)
        spin_unlock(t.locks + l1)
    return found


cdef inline bint _files_deep(const Key* k, const uint32_t* pattern, int fewest) noexcept nogil:
    """Whether an entry of a crowded bucket goes to its deep bucket: it keys DEEP_KEYED owners
    (or all) in every suit but the shortest, ``fewest`` (see Table.crowded)."""
    cdef int suit, kk
    for suit in range(4):
        kk = (pattern[suit] >> K_SHIFT) & 15
        if kk < DEEP_KEYED and kk < k.cnt[suit] and suit != fewest:
            return 0
    return 1


cdef void tt_store(Table* t, const Key* k, uint64_t rel, int lo, int hi, int best,
                   int work) noexcept nogil:
    cdef uint64_t home = _bucket(t, k.check), bucket = home, check = k.check
    cdef uint32_t pattern[4]
    cdef uint64_t lane
    cdef int suit, kk, real, fewest
    rel |= k.always
    for suit in range(4):
        lane = (rel >> (16 * suit)) & (k.rem >> (16 * suit)) & SUIT_LANE
        if k.cnt[suit] == 0:
            pattern[suit] = 0
        else:
            kk = popcount(((k.rem >> (16 * suit)) & SUIT_LANE) >> ctz(lane)) if lane else 0
            real = 3
            if kk < t.top_keyed[suit]:
                real = kk
                kk = k.cnt[suit] if k.cnt[suit] < t.top_keyed[suit] else t.top_keyed[suit]
            pattern[suit] = ((k.seq[suit] >> (2 * (k.cnt[suit] - kk))) | (<uint32_t>kk << K_SHIFT)
                             | (<uint32_t>real << R_SHIFT))
    if t.crowded[home] == t.gen:
        fewest = _shortest(k)
        if _files_deep(k, pattern, fewest):
            check = _deep_check(t, k, fewest)
            bucket = _bucket(t, check)
    if t.locks != NULL:
        spin_lock(t.locks + (bucket & (LOCKS - 1)))
    _store_in(t, bucket, home, check, pattern, lo, hi, best, work)
    if t.locks != NULL:
        spin_unlock(t.locks + (bucket & (LOCKS - 1)))


cdef inline void _store_in(Table* t, uint64_t bucket, uint64_t home, uint64_t check,
                           const uint32_t* pattern, int lo, int hi, int best,
                           int work) noexcept nogil:
    cdef Entry* b = t.buckets[bucket].entries
    cdef uint16_t* tb = t.buckets[bucket].tags
    cdef uint16_t tag = _tag(check)
    cdef uint32_t stored = _stored(check)
    cdef uint64_t m = tag_matches(tb, tag)
    cdef int i, suit, victim = -1
    while m:
        i = ctz(m)
        m &= m - 1
        if (b[i].check == stored and b[i].gen == t.gen
                and b[i].pattern[0] == pattern[0]
                and b[i].pattern[1] == pattern[1] and b[i].pattern[2] == pattern[2]
                and b[i].pattern[3] == pattern[3]):
            if lo > b[i].lo:
                b[i].lo = lo
            if hi < b[i].hi:
                b[i].hi = hi
            if best >= 0:
                b[i].best = best
            if work > b[i].work:
                b[i].work = work
            return
    # the newest entry goes first, so an entry's place is its age; the victim is an empty slot,
    # else the cheapest for its age (cost alone kept old entries of passes long gone: on 8
    # deals with a 16 MB table, 180 M nodes against 151 M)
    for i in range(BUCKET):
        if tb[i] == 0 or b[i].gen != t.gen:
            victim = i
            break
        if victim < 0 or b[i].work * WORK_WEIGHT - i <= b[victim].work * WORK_WEIGHT - victim:
            victim = i
    if (bucket == home and tb[victim] == tag and b[victim].check == stored
            and b[victim].gen == t.gen):
        t.crowded[home] = t.gen
    if victim > 0:
        memmove(&b[1], &b[0], victim * sizeof(Entry))
        memmove(&tb[1], &tb[0], victim * sizeof(uint16_t))
    tb[0] = tag
    b[0].check = stored
    for suit in range(4):
        b[0].pattern[suit] = pattern[suit]
    b[0].lo = lo
    b[0].hi = hi
    b[0].best = best
    b[0].work = work
    b[0].gen = t.gen


cdef uint64_t exact_hash(const State* s, int kind) noexcept nogil:
    """A 64-bit hash of the whole position at a trick boundary, for the whole-position cache."""
    cdef uint64_t h = _mix(<uint64_t>0x2545F4914F6CDD1DULL, s.hand[0])
    h = _mix(h, s.hand[1])
    h = _mix(h, s.hand[2])
    h = _mix(h, s.hand[3])
    return _mix(h, <uint64_t>s.leader | (<uint64_t>s.broken << 2) | (<uint64_t>s.moon << 3)
                | (<uint64_t>s.target << 6) | (<uint64_t>kind << 8)
                | (<uint64_t>s.first_trick << 12) | (<uint64_t>(s.forced_lead + 1) << 16))


cdef int ex_probe(const Table* t, uint64_t h, int* lo, int* hi, int* best,
                  uint64_t* rel_lo, uint64_t* rel_hi) noexcept nogil:
    """The bounds cached for this very position, if any (1), with what each relies on."""
    cdef const Exact* e = t.exact + (h & t.exact_mask)
    if e.hash != h or e.gen != t.gen:
        return 0
    lo[0] = e.lo
    hi[0] = e.hi
    best[0] = e.best
    rel_lo[0] = e.rel_lo
    rel_hi[0] = e.rel_hi
    return 1


cdef void ex_store(Table* t, uint64_t h, int lo, int hi, int best, uint64_t rel_lo,
                   uint64_t rel_hi) noexcept nogil:
    """Cache bounds of this position: merged with those already cached for it, else replacing
    whatever position held the slot."""
    cdef Exact* e = t.exact + (h & t.exact_mask)
    if e.hash != h or e.gen != t.gen:
        e.hash = h
        e.gen = t.gen
        e.lo = -INF
        e.hi = INF
        e.best = -1
    if lo > e.lo:
        e.lo = lo
        e.rel_lo = rel_lo
    if hi < e.hi:
        e.hi = hi
        e.rel_hi = rel_hi
    if best >= 0:
        e.best = best
