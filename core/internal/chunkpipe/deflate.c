#include "deflate.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Planes shorter than this are coded whole: below it the blocks a change of strategy closes
   cost more than the matching they spare (a probe over 1,000-column rows found no gain). */
#define MIN_PLANE 4096
/* Bytes whose histogram decides whether the rest of a plane is looked at. */
#define SAMPLE 1024
#define MATCH_SLOTS 1024
/* Planes longer than this are coded whole: nearlyUniform's sums stay within 64 bits, and
   chunks are at most 1 MiB (format §7.3). */
#define MAX_PLANE (1u << 26)

struct chunkpipe_deflater {
    z_stream whole;  /* default strategy only: its streams are compress2's bytes */
    z_stream planes; /* switches strategy plane by plane */
    int whole_level, planes_level;
    uint32_t slots[MATCH_SLOTS];
};

chunkpipe_deflater *chunkpipe_deflater_new(void) {
    chunkpipe_deflater *d = calloc(1, sizeof *d);
    if (d) {
        d->whole_level = d->planes_level = -1;
    }
    return d;
}

void chunkpipe_deflater_free(chunkpipe_deflater *d) {
    if (!d) {
        return;
    }
    if (d->whole_level >= 0) {
        deflateEnd(&d->whole);
    }
    if (d->planes_level >= 0) {
        deflateEnd(&d->planes);
    }
    free(d);
}

/* ready makes z a fresh stream at level. deflateReset keeps the stream's memory (compress2
   allocates and clears about 270 KB per call, most of a small chunk's cost) and gives the
   same bytes as a new stream. It keeps the strategy the stream last had, which byPlanesInto
   sets again before its first input. */
static int ready(z_stream *z, int *have, int level) {
    if (*have == level) {
        return deflateReset(z) == Z_OK ? Z_OK : Z_STREAM_ERROR;
    }
    if (*have >= 0) {
        deflateEnd(z);
        *have = -1;
    }
    memset(z, 0, sizeof *z);
    int rc = deflateInit(z, level);
    if (rc == Z_OK) {
        *have = level;
    }
    return rc;
}

/* feed deflates n bytes of src into the stream with the given flush: Z_OK while the stream
   is open, Z_STREAM_END once finished, Z_BUF_ERROR when dst filled first, or zlib's own
   error. */
static int feed(z_stream *z, const unsigned char *src, size_t n, int flush) {
    z->next_in = (unsigned char *)src;
    z->avail_in = (uInt)n;
    int rc = deflate(z, flush);
    if (rc == Z_STREAM_END || (rc == Z_OK && z->avail_in == 0 && flush != Z_FINISH)) {
        return rc;
    }
    return rc == Z_OK || rc == Z_BUF_ERROR ? Z_BUF_ERROR : rc;
}

/* forget drops the caller's buffers from z once a call is done: C must not keep Go's
   pointers past the call, and a reset stream must not find stale input (zlib before 1.2.12
   compresses it on a change of strategy). */
static void forget(z_stream *z) {
    z->next_in = Z_NULL;
    z->avail_in = 0;
    z->next_out = Z_NULL;
    z->avail_out = 0;
}

static void histogram(uint32_t h[256], const unsigned char *p, size_t from, size_t to) {
    uint32_t h1[256] = {0}, h2[256] = {0}, h3[256] = {0};
    size_t i = from;
    for (; i + 4 <= to; i += 4) {
        h[p[i]]++;
        h1[p[i + 1]]++;
        h2[p[i + 2]]++;
        h3[p[i + 3]]++;
    }
    for (; i < to; i++) {
        h[p[i]]++;
    }
    for (int k = 0; k < 256; k++) {
        h[k] += h1[k] + h2[k] + h3[k];
    }
}

/* nearlyUniform: the collision entropy of the n bytes counted in h is at least 7 bits, that
   is sum(count^2) <= n^2 / 128. It bounds Shannon's entropy from below, so Huffman codes of
   such bytes spend at least 7 bits a byte whatever coder is used. */
static int nearlyUniform(const uint32_t h[256], size_t n) {
    uint64_t sq = 0;
    for (int k = 0; k < 256; k++) {
        sq += (uint64_t)h[k] * h[k];
    }
    return sq * 128 <= (uint64_t)n * n;
}

/* repeats says whether 4-byte runs recur in p, the strings deflate's matching would find.
   A position is looked at when its first byte is below 16, so two equal runs are both looked
   at or both passed over, and eight bytes are tested at once. */
static int repeats(uint32_t *slots, const unsigned char *p, size_t n) {
    memset(slots, 0, MATCH_SLOTS * sizeof *slots);
    size_t seen = 0, hits = 0;
    for (size_t i = 0; i + 12 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x); /* byte k of the word is p[i + k], as ctz below counts */
#endif
        uint64_t high = x & 0xF0F0F0F0F0F0F0F0ull;
        uint64_t zero = (high - 0x0101010101010101ull) & ~high & 0x8080808080808080ull;
        while (zero) {
            size_t at = i + (size_t)(__builtin_ctzll(zero) >> 3);
            zero &= zero - 1;
            uint32_t v, w;
            memcpy(&v, p + at, 4);
            uint32_t slot = (v * 2654435761u) >> 22;
            uint32_t prev = slots[slot];
            if (prev) {
                memcpy(&w, p + prev - 1, 4);
                hits += w == v;
            }
            slots[slot] = (uint32_t)at + 1;
            seen++;
        }
    }
    return hits * 32 > seen;
}

int chunkpipe_plane_is_noise(chunkpipe_deflater *d, const unsigned char *p, size_t n) {
    if (n < MIN_PLANE || n > MAX_PLANE) {
        return 0;
    }
    uint32_t h[256] = {0};
    histogram(h, p, 0, SAMPLE);
    if (!nearlyUniform(h, SAMPLE)) {
        return 0;
    }
    histogram(h, p, SAMPLE, n);
    return nearlyUniform(h, n) && !repeats(d->slots, p, n);
}

static int whole(chunkpipe_deflater *d, unsigned char *dst, size_t *dst_len,
                 const unsigned char *src, size_t src_len, int level) {
    int rc = ready(&d->whole, &d->whole_level, level);
    if (rc != Z_OK) {
        return rc;
    }
    d->whole.next_out = dst;
    d->whole.avail_out = (uInt)*dst_len;
    rc = feed(&d->whole, src, src_len, Z_FINISH);
    *dst_len = d->whole.total_out;
    forget(&d->whole);
    return rc == Z_STREAM_END ? Z_OK : rc;
}

/* byPlanesInto feeds z every plane with its strategy, then the bytes left over with
   Z_FINISH: Z_STREAM_END when the stream is whole. The stream's strategy is set before its
   first input, as a reset stream keeps the last chunk's. */
static int byPlanesInto(z_stream *z, const unsigned char *src, size_t src_len, int level,
                        size_t plane_len, int planes, uint32_t noise) {
    int strategy = -1;
    size_t done = 0;
    for (int p = 0; p < planes; p++) {
        int want = (noise >> p) & 1 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY;
        if (want != strategy) {
            int rc = deflateParams(z, level, want);
            if (rc != Z_OK) {
                return rc == Z_STREAM_ERROR ? rc : Z_BUF_ERROR;
            }
            strategy = want;
        }
        int rc = feed(z, src + done, plane_len, Z_NO_FLUSH);
        if (rc != Z_OK) {
            return rc;
        }
        done += plane_len;
    }
    return feed(z, src + done, src_len - done, Z_FINISH);
}

/* byPlanes codes each plane flagged in noise with Huffman codes only, the others with the
   level's matching, in one stream; Z_BUF_ERROR when it does not fit or zlib refuses a
   change of strategy, and the caller codes the chunk whole instead. */
static int byPlanes(chunkpipe_deflater *d, unsigned char *dst, size_t *dst_len,
                    const unsigned char *src, size_t src_len, int level, size_t plane_len,
                    int planes, uint32_t noise) {
    z_stream *z = &d->planes;
    int rc = ready(z, &d->planes_level, level);
    if (rc != Z_OK) {
        return rc;
    }
    /* The output is set before byPlanesInto's first deflateParams: zlib before 1.2.12 may
       write the stream's header on a change of strategy. */
    z->next_out = dst;
    z->avail_out = (uInt)*dst_len;
    rc = byPlanesInto(z, src, src_len, level, plane_len, planes, noise);
    *dst_len = z->total_out;
    forget(z);
    return rc == Z_STREAM_END ? Z_OK : rc;
}

int chunkpipe_deflate_chunk(chunkpipe_deflater *d, unsigned char *dst, size_t *dst_len,
                          const unsigned char *src, size_t src_len, int level,
                          size_t plane_len, int planes) {
    if (src_len > UINT_MAX / 2 || *dst_len > UINT_MAX / 2) {
        /* Beyond one deflate call's counters; chunks are at most 1 MiB (format §7.3). */
        uLongf n = (uLongf)*dst_len;
        int rc = compress2(dst, &n, src, (uLong)src_len, level);
        *dst_len = (size_t)n;
        return rc;
    }
    uint32_t noise = 0;
    if (planes > 1 && planes <= 32 && plane_len >= MIN_PLANE && level > 0 &&
        plane_len <= src_len / (size_t)planes) {
        for (int p = 0; p < planes; p++) {
            if (chunkpipe_plane_is_noise(d, src + (size_t)p * plane_len, plane_len)) {
                noise |= 1u << p;
            }
        }
    }
    if (noise) {
        size_t n = *dst_len;
        int rc = byPlanes(d, dst, &n, src, src_len, level, plane_len, planes, noise);
        if (rc != Z_BUF_ERROR) {
            if (rc == Z_OK) {
                *dst_len = n;
            }
            return rc;
        }
        /* It did not fit, or zlib refused the change of strategy: the chunk whole. */
    }
    return whole(d, dst, dst_len, src, src_len, level);
}
