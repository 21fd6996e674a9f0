# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Transposition table: 4-entry buckets, bounds merged on store, shallow entries replaced first."""
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport uint64_t


cdef inline uint64_t _hash(const uint64_t* key) noexcept nogil:
    cdef uint64_t h = <uint64_t>0x9E3779B97F4A7C15ULL
    cdef int i
    for i in range(KEY_WORDS):
        h ^= key[i]
        h *= <uint64_t>0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
    return h


cdef int tt_init(Table* t, size_t max_bytes) noexcept nogil:
    cdef uint64_t n = 1
    while (n * 2) * BUCKET * sizeof(Entry) <= max_bytes:
        n *= 2
    t.entries = <Entry*>calloc(n * BUCKET, sizeof(Entry))
    if t.entries == NULL:
        return -1
    t.nbuckets = n
    t.gen = 1
    t.probes = t.hits = t.stores = 0
    return 0


cdef void tt_free(Table* t) noexcept nogil:
    free(t.entries)
    t.entries = NULL


cdef void tt_clear(Table* t) noexcept nogil:
    if t.gen == 255:
        memset(t.entries, 0, t.nbuckets * BUCKET * sizeof(Entry))
        t.gen = 0
    t.gen += 1


cdef inline bint _same(const Entry* e, const uint64_t* key) noexcept nogil:
    return (e.key[0] == key[0] and e.key[1] == key[1] and e.key[2] == key[2]
            and e.key[3] == key[3] and e.key[4] == key[4])


cdef Entry* tt_probe(Table* t, const uint64_t* key) noexcept nogil:
    cdef Entry* b = t.entries + (_hash(key) & (t.nbuckets - 1)) * BUCKET
    cdef int i
    t.probes += 1
    for i in range(BUCKET):
        if b[i].gen == t.gen and _same(&b[i], key):
            t.hits += 1
            return &b[i]
    return NULL


cdef void tt_store(Table* t, const uint64_t* key, int lo, int hi, int best, int depth) noexcept nogil:
    cdef Entry* b = t.entries + (_hash(key) & (t.nbuckets - 1)) * BUCKET
    cdef Entry* e = NULL
    cdef int i, k
    t.stores += 1
    for i in range(BUCKET):
        if b[i].gen == t.gen and _same(&b[i], key):
            e = &b[i]
            if lo > e.lo:
                e.lo = lo
            if hi < e.hi:
                e.hi = hi
            if best >= 0:
                e.best = best
            return
    for i in range(BUCKET):
        if b[i].gen != t.gen:
            e = &b[i]
            break
        if e == NULL or b[i].depth < e.depth:
            e = &b[i]
    for k in range(KEY_WORDS):
        e.key[k] = key[k]
    e.lo = lo
    e.hi = hi
    e.best = best
    e.depth = depth
    e.gen = t.gen
