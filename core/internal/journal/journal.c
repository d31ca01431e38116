/*
 * Rollback journal for the store's NetCDF file.
 *
 * Why. A unit of work rewrites bytes that committed arrays live in: a single add fills a free
 * column of a packed dataset, so every chunk of that dataset (one timestamp of every column,
 * docs/format.md §7.3) is decompressed, changed and written again; a remove zero-fills
 * a column (docs/format.md §8); every unit rewrites HDF5 metadata in place. HDF5 1.10 puts
 * a rewritten compressed chunk in new space and frees the old space, which another chunk of
 * the same write may then reuse while the index on disk still points there; its metadata
 * flush is not atomic either. A process killed in the middle of that leaves committed columns
 * reading another chunk's bytes, or a file HDF5 cannot open. The crash harness
 * (tests/crash) measured committed series damaged in a third of 200 kills.
 *
 * What. The file goes through a file driver of our own (HDF5's public VFD interface, the
 * same I/O as the default sec2 driver) that keeps the file, as it was when the unit began,
 * recoverable — the rollback journal SQLite uses for its database file:
 *   - E0 is the file's length when the unit began. Writes at or beyond E0 go straight to the
 *     file: they touch no committed byte.
 *   - A write below E0 lands in an in-memory overlay of 4 KiB pages (reads see it); the file
 *     keeps its committed bytes.
 *   - At a flush (nc_sync), or when the overlay outgrows its budget, the driver spills: it
 *     appends each overlay page's committed bytes to the journal (path + "-journal"), syncs
 *     the journal, and only then writes the pages into the file. A page journalled once is
 *     written directly for the rest of the unit.
 *   - tsj_end_unit syncs the file and empties the journal: the unit's bytes are the new
 *     committed state. The store calls it after nc_sync and before the catalog commits. The
 *     empty journal stays beside the file while it is open and goes when it closes.
 *   - A journal with a valid header at open (a "hot" journal) means a writer died in the
 *     middle of a spill: tsj_recover writes the pre-images back and truncates the file to E0,
 *     which is byte for byte the file of the last ended unit.
 * A kill before the first spill needs no journal: below E0 the file is untouched, and HDF5
 * ignores bytes past the end of allocation it recorded.
 *
 * How netcdf-c gets the driver. netcdf-c 4.9 builds its own file-access property list and has
 * no way to choose a driver, and HDF5 1.10 has no way to change the default one. While the
 * store opens or creates a file it "arms" the journal, and libnetcdf's two calls into HDF5
 * that open files (H5Fopen, H5Fcreate) are redirected, in libnetcdf's global offset table,
 * to wrappers that copy netcdf-c's property list, set this driver on the copy and call HDF5.
 * Unarmed calls (another library's netcdf files, read-only stores) pass straight through.
 * Where libnetcdf is not a separate ELF shared object the redirect is impossible and
 * tsj_active() says so.
 *
 * Every call here runs under the store's netcdf lock (ncshim.Lock, core/internal/ncshim) or
 * inside HDF5, which that lock serialises; nothing here takes a lock of its own.
 */
#define _GNU_SOURCE
#include "journal.h"

#include <hdf5.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__linux__)
#include <link.h>
#include <sys/mman.h>
#endif

#define TSJ_PAGE ((uint64_t)4096)
#define TSJ_DEFAULT_SPILL ((size_t)64 << 20)
#define TSJ_HDR_LEN 48
#define TSJ_REC_LEN 16
static const char tsj_magic[8] = {'T', 'S', 'J', 'R', 'N', 'L', '0', '1'};

/* ---- CRC-32 (IEEE) ---------------------------------------------------------------------- */

/* zlib's crc32_z: the IEEE polynomial, reflected, inverted before and after, so a chained
   call continues a checksum and every journal written with the bytewise table this file
   used before reads back the same. zlib computes it several bytes at a time: the table took
   4% of a durable single add, which journals about 108 KB (docs/benchmarks.md). */
static uint32_t crc_update(uint32_t crc, const void *p, size_t n) {
    return (uint32_t)crc32_z(crc, p, n);
}

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t get32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* ---- whole-buffer I/O ------------------------------------------------------------------- */

/* Reads n bytes at off; bytes past the end of the file read as zero (as sec2 does). */
static int pread_full(int fd, void *buf, uint64_t n, uint64_t off) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) {
            memset(p, 0, n);
            return 0;
        }
        p += r, n -= (uint64_t)r, off += (uint64_t)r;
    }
    return 0;
}

static int pwrite_full(int fd, const void *buf, uint64_t n, uint64_t off) {
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = pwrite(fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += r, n -= (uint64_t)r, off += (uint64_t)r;
    }
    return 0;
}

static int fsync_dir_of(const char *path) {
    char *copy = strdup(path);
    if (!copy) return -1;
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (dfd < 0) return -1;
    int rc = fsync(dfd);
    close(dfd);
    return rc;
}

/* ---- a map from page number to page ----------------------------------------------------- */

typedef struct {
    uint64_t *keys; /* page number + 1; 0 marks an empty slot */
    unsigned char **vals;
    size_t cap, n;
} pagemap;

static size_t pm_slot(const pagemap *m, uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 17) & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    return i;
}

static unsigned char *pm_get(const pagemap *m, uint64_t page) {
    if (m->n == 0) return NULL;
    size_t i = pm_slot(m, page + 1);
    return m->keys[i] ? m->vals[i] : NULL;
}

static int pm_put(pagemap *m, uint64_t page, unsigned char *val) {
    if ((m->n + 1) * 2 > m->cap) {
        pagemap g = {0};
        g.cap = m->cap ? m->cap * 2 : 256;
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        if (!g.keys || !g.vals) {
            free(g.keys), free(g.vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = pm_slot(&g, m->keys[i]);
                g.keys[j] = m->keys[i], g.vals[j] = m->vals[i], g.n++;
            }
        free(m->keys), free(m->vals);
        *m = g;
    }
    size_t i = pm_slot(m, page + 1);
    if (!m->keys[i]) m->n++;
    m->keys[i] = page + 1, m->vals[i] = val;
    return 0;
}

/* Empties the map, freeing the values when free_vals. */
static void pm_clear(pagemap *m, int free_vals) {
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] && free_vals) free(m->vals[i]);
        m->keys[i] = 0, m->vals[i] = NULL;
    }
    m->n = 0;
}

static void pm_free(pagemap *m, int free_vals) {
    pm_clear(m, free_vals);
    free(m->keys), free(m->vals);
    memset(m, 0, sizeof *m);
}

/* The value of every entry of a tsj_file's journaled set (pm_get returns NULL for absent). */
static unsigned char journaled_mark;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- the driver -------------------------------------------------------------------------- */

struct tsj_file {
    H5FD_t pub; /* first: HDF5 sees this */
    int fd;
    dev_t dev;
    ino_t ino;
    int writable;
    haddr_t eoa, eof;
    uint64_t e0;       /* file length when the unit began */
    pagemap overlay;   /* pages below e0 written in this unit, not yet in the file */
    size_t overlay_bytes, spill_at;
    pagemap journaled; /* pages whose committed bytes the journal holds (values: &journaled_mark) */
    char *jpath;
    int jfd;
    uint64_t jlen;  /* bytes of the journal written in this unit; 0 = journal empty */
    uint64_t nonce; /* distinguishes this unit's records from any stale bytes */
    int failed;     /* errno of a failed write or journal step: every later call fails (journal kept) */
    uint64_t stat_journal_bytes, stat_spills;
    struct tsj_file *next;
};

static struct {
    int armed;
    size_t spill;
    int fail_opens; /* errno every writable file opened from now on fails with (tests) */
} arm;
/* Why a file failed, kept when it closes inside the armed open that opened it: an open whose
   own writes fail (HDF5 writes its superblock as it opens) is closed before the store can ask
   the file. Failures of files closed later are not kept: their inode may be reused by the
   next file opened. */
static struct {
    dev_t dev;
    ino_t ino;
    int err;
    char msg[600];
} last_failure;
static tsj_file *open_files;
static hid_t driver_id = -1;

/* Marks f failed with the errno of the call that failed (the first failure is kept). */
static void fail(tsj_file *f) {
    if (!f->failed) f->failed = errno ? errno : EIO;
}

static uint64_t new_nonce(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    static uint64_t counter;
    return ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40) ^
           (++counter * 0x9E3779B97F4A7C15ull);
}

/* The header: magic, version 2, page size, E0, the unit's nonce, the inode of the file the
   journal was written for, and a CRC of the rest. */
static void encode_header(unsigned char *h, uint64_t e0, uint64_t nonce, uint64_t ino) {
    memset(h, 0, TSJ_HDR_LEN);
    memcpy(h, tsj_magic, 8);
    put32(h + 8, 2);
    put32(h + 12, (uint32_t)TSJ_PAGE);
    put64(h + 16, e0);
    put64(h + 24, nonce);
    put64(h + 32, ino);
    put32(h + 40, crc_update(0, h, 40));
}

/* Whether h is a valid header: a journal with one is hot (its unit did not end). */
static int header_valid(const unsigned char *h) {
    return memcmp(h, tsj_magic, 8) == 0 && get32(h + 40) == crc_update(0, h, 40) && get32(h + 8) == 2 &&
           get32(h + 12) == TSJ_PAGE;
}

/* Whether the file at fd may be taken as a journal: a regular file, empty or starting with
   the journal's magic — never another file that happens to have the journal's name. */
static int journal_shaped(int fd, struct stat *st) {
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) return 0;
    if (st->st_size == 0) return 1;
    unsigned char m[8];
    return st->st_size >= 8 && pread_full(fd, m, 8, 0) == 0 && memcmp(m, tsj_magic, 8) == 0;
}

static int journal_open(tsj_file *f) {
    if (f->jfd >= 0) return 0;
    int created = access(f->jpath, F_OK) != 0;
    /* Not a FIFO (an open would block), not through a symlink, not another file. */
    int fd = open(f->jpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    struct stat st;
    unsigned char h[TSJ_HDR_LEN];
    if (!journal_shaped(fd, &st)) {
        close(fd);
        errno = EEXIST;
        return -1;
    }
    /* A journal that is still hot belongs to a unit that was never rolled back: reusing it
       would destroy the only copy of that file's committed pages. */
    if (st.st_size >= TSJ_HDR_LEN && pread_full(fd, h, TSJ_HDR_LEN, 0) == 0 && header_valid(h)) {
        close(fd);
        errno = EEXIST;
        return -1;
    }
    if (st.st_size > 0 && ftruncate(fd, 0) < 0) {
        close(fd);
        return -1;
    }
    f->jfd = fd;
    /* The journal's directory entry must be durable before a page relies on it. */
    if (created && fsync_dir_of(f->jpath) < 0) return -1;
    return 0;
}

static uint32_t record_crc(uint64_t nonce, const unsigned char *rec, const unsigned char *data, uint32_t len) {
    unsigned char n[8];
    put64(n, nonce);
    uint32_t c = crc_update(0, n, 8);
    c = crc_update(c, rec, 12);
    return crc_update(c, data, len);
}

static uint64_t page_len(const tsj_file *f, uint64_t page) {
    uint64_t off = page * TSJ_PAGE;
    return f->e0 - off < TSJ_PAGE ? f->e0 - off : TSJ_PAGE;
}

/* Journals the committed bytes of every overlay page, syncs the journal, then writes the
   pages into the file. */
static int spill(tsj_file *f) {
    if (f->overlay.n == 0) return 0;
    size_t n = 0;
    uint64_t *pages = malloc(f->overlay.n * sizeof *pages);
    if (!pages) return -1;
    for (size_t i = 0; i < f->overlay.cap; i++)
        if (f->overlay.keys[i]) pages[n++] = f->overlay.keys[i] - 1;
    qsort(pages, n, sizeof *pages, cmp_u64);

    int rc = -1;
    enum { BUF = 1 << 20 };
    unsigned char *buf = malloc(BUF);
    if (!buf || journal_open(f) < 0) goto out;
    if (f->jlen == 0) {
        f->nonce = new_nonce();
        encode_header(buf, f->e0, f->nonce, (uint64_t)f->ino);
        if (pwrite_full(f->jfd, buf, TSJ_HDR_LEN, 0) < 0) goto out;
        f->jlen = TSJ_HDR_LEN;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t len = page_len(f, pages[i]);
        if (used + TSJ_REC_LEN + len > BUF) {
            if (pwrite_full(f->jfd, buf, used, f->jlen) < 0) goto out;
            f->jlen += used, f->stat_journal_bytes += used, used = 0;
        }
        unsigned char *rec = buf + used, *data = rec + TSJ_REC_LEN;
        if (pread_full(f->fd, data, len, pages[i] * TSJ_PAGE) < 0) goto out;
        put64(rec, pages[i] * TSJ_PAGE);
        put32(rec + 8, (uint32_t)len);
        put32(rec + 12, record_crc(f->nonce, rec, data, (uint32_t)len));
        used += TSJ_REC_LEN + len;
    }
    if (used && pwrite_full(f->jfd, buf, used, f->jlen) < 0) goto out;
    f->jlen += used, f->stat_journal_bytes += used;
    if (fdatasync(f->jfd) < 0) goto out;

    /* The pre-images are durable: the pages may go into the file, adjacent ones together. */
    for (size_t i = 0; i < n;) {
        struct iovec iov[64];
        size_t k = 0;
        uint64_t start = pages[i] * TSJ_PAGE, bytes = 0;
        while (i < n && k < 64 && (k == 0 || pages[i] == pages[i - 1] + 1)) {
            iov[k].iov_base = pm_get(&f->overlay, pages[i]);
            iov[k].iov_len = page_len(f, pages[i]);
            bytes += iov[k].iov_len;
            k++, i++;
        }
        ssize_t w;
        do w = pwritev(f->fd, iov, (int)k, (off_t)start);
        while (w < 0 && errno == EINTR);
        if (w < 0) goto out;
        if ((uint64_t)w != bytes) {
            /* A short vector write: finish the rest page by page. */
            uint64_t done = (uint64_t)w, at = 0;
            for (size_t j = 0; j < k; j++) {
                uint64_t l = iov[j].iov_len;
                if (at + l > done) {
                    uint64_t skip = done > at ? done - at : 0;
                    if (pwrite_full(f->fd, (unsigned char *)iov[j].iov_base + skip, l - skip, start + at + skip) < 0)
                        goto out;
                }
                at += l;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (pm_put(&f->journaled, pages[i], &journaled_mark) < 0) goto out;
    pm_clear(&f->overlay, 1);
    f->overlay_bytes = 0;
    f->stat_spills++;
    rc = 0;
out:
    free(buf);
    free(pages);
    if (rc < 0) fail(f);
    return rc;
}

/* A failed file. Once a write into the file or its journal fails, the call that failed
   reports it and the file is marked failed: from then on writes and flushes are discarded
   and reported done. The store refuses every call on a failed file (tsj_failure), so what
   still reaches the driver is the close — and netcdf-c closes a file only when its final
   sync succeeds; a close that failed would leave the file open inside HDF5, and the next
   open in the process would be handed the same broken file. The bytes on disk stay what the
   rollback needs: committed bytes untouched below E0, or a hot journal that restores them.
   Reads still see the file with its overlay, as HDF5 left it. */

static H5FD_t *drv_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr) {
    (void)fapl, (void)maxaddr;
    int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) o |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) o |= O_CREAT;
    if (flags & H5F_ACC_EXCL) o |= O_EXCL;
    int fd = open(name, o | O_CLOEXEC, 0666);
    if (fd < 0) return NULL;
    struct stat st;
    tsj_file *f = calloc(1, sizeof *f);
    size_t nl = strlen(name);
    if (!f || fstat(fd, &st) < 0 || !(f->jpath = malloc(nl + sizeof "-journal"))) {
        if (f) free(f);
        close(fd);
        return NULL;
    }
    memcpy(f->jpath, name, nl);
    memcpy(f->jpath + nl, "-journal", sizeof "-journal");
    f->fd = fd, f->jfd = -1;
    f->dev = st.st_dev, f->ino = st.st_ino;
    f->writable = (flags & H5F_ACC_RDWR) != 0;
    /* A writer holds the file's exclusive lock for as long as it is open, whatever HDF5's
       own locking is set to (HDF5_USE_FILE_LOCKING=FALSE is common on HPC filesystems):
       recovery in another process takes that lock before it touches a journal, and must
       never roll back the file of a live writer. A filesystem without flock (ENOSYS,
       ENOLCK, EOPNOTSUPP) cannot give that protection; the open goes on. */
    if (f->writable && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno != ENOSYS && errno != ENOLCK && errno != EOPNOTSUPP) {
        close(fd);
        free(f->jpath);
        free(f);
        return NULL;
    }
    f->eof = (haddr_t)st.st_size, f->eoa = 0;
    f->e0 = (uint64_t)st.st_size;
    f->spill_at = arm.spill ? arm.spill : TSJ_DEFAULT_SPILL;
    f->next = open_files, open_files = f;
    if (arm.fail_opens && f->writable) {
        errno = arm.fail_opens;
        fail(f);
    }
    return &f->pub;
}

static int end_unit(tsj_file *f) {
    if (f->failed) return -1;
    if (spill(f) < 0) return -1;
    if (fdatasync(f->fd) < 0) return fail(f), -1;
    if (f->jlen) {
        /* Emptying the journal is the file's commit point: it must be durable before the
           catalog commits, or a machine crash could roll the file back under a committed
           catalog. The empty journal stays until the file closes (SQLite's TRUNCATE journal
           mode): removing and creating it again each unit cost a directory sync and 3.5 ms
           of a 14.8 ms durable single add. An empty journal is never hot. */
        if (ftruncate(f->jfd, 0) < 0 || fdatasync(f->jfd) < 0) return fail(f), -1;
        f->jlen = 0;
    }
    pm_clear(&f->journaled, 0);
    f->e0 = f->eof;
    return 0;
}

static herr_t drv_close(H5FD_t *file) {
    tsj_file *f = (tsj_file *)file;
    herr_t rc = 0;
    if (f->failed && arm.armed) { /* only a failure inside the open asking for it (inodes are reused) */
        tsj_failure(f, last_failure.msg, sizeof last_failure.msg);
        last_failure.dev = f->dev, last_failure.ino = f->ino, last_failure.err = f->failed;
    }
    /* HDF5 flushed everything it had before closing (or the open failed and it wrote
       nothing): end the unit. A failed file keeps its journal: the next open rolls the file
       back with it. */
    if (f->writable && !f->failed && end_unit(f) < 0) rc = -1;
    if (f->jfd >= 0 && f->writable && !f->failed && rc == 0) unlink(f->jpath); /* empty: not needed */
    if (f->jfd >= 0) close(f->jfd);
    if (close(f->fd) < 0) rc = -1;
    for (tsj_file **p = &open_files; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    pm_free(&f->overlay, 1);
    pm_free(&f->journaled, 0);
    free(f->jpath);
    free(f);
    return rc;
}

static int drv_cmp(const H5FD_t *a, const H5FD_t *b) {
    const tsj_file *x = (const tsj_file *)a, *y = (const tsj_file *)b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return 0;
}

static herr_t drv_query(const H5FD_t *file, unsigned long *flags) {
    (void)file;
    /* The default sec2 driver's features, so HDF5 lays the file out exactly as it would. */
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE | H5FD_FEAT_SUPPORTS_SWMR_IO |
             H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

static haddr_t drv_get_eoa(const H5FD_t *file, H5FD_mem_t type) {
    (void)type;
    return ((const tsj_file *)file)->eoa;
}

static herr_t drv_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr) {
    (void)type;
    ((tsj_file *)file)->eoa = addr;
    return 0;
}

static haddr_t drv_get_eof(const H5FD_t *file, H5FD_mem_t type) {
    (void)type;
    return ((const tsj_file *)file)->eof;
}

static herr_t drv_get_handle(H5FD_t *file, hid_t fapl, void **handle) {
    (void)fapl;
    *handle = &((tsj_file *)file)->fd;
    return 0;
}

static herr_t drv_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf) {
    (void)type, (void)dxpl;
    tsj_file *f = (tsj_file *)file;
    if (addr == HADDR_UNDEF) return -1;
    if (pread_full(f->fd, buf, size, addr) < 0) return -1;
    if (f->overlay.n == 0 || addr >= f->e0) return 0;
    /* Pages of the overlay replace what the file still holds. */
    uint64_t end = addr + size < f->e0 ? addr + size : f->e0;
    for (uint64_t p = addr / TSJ_PAGE; p * TSJ_PAGE < end; p++) {
        unsigned char *pg = pm_get(&f->overlay, p);
        if (!pg) continue;
        uint64_t lo = p * TSJ_PAGE > addr ? p * TSJ_PAGE : addr;
        uint64_t hi = (p + 1) * TSJ_PAGE < end ? (p + 1) * TSJ_PAGE : end;
        memcpy((unsigned char *)buf + (lo - addr), pg + (lo - p * TSJ_PAGE), hi - lo);
    }
    return 0;
}

static herr_t drv_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf) {
    (void)type, (void)dxpl;
    tsj_file *f = (tsj_file *)file;
    if (addr == HADDR_UNDEF || !f->writable) return -1;
    if (f->failed) return 0; /* discarded: see "A failed file" above */
    const unsigned char *src = buf;
    uint64_t end = addr + size;
    uint64_t below = end < f->e0 ? end : f->e0; /* [addr, below) holds committed bytes */
    uint64_t run_lo = 0, run_hi = 0;           /* a run of journalled pages, written directly */
    for (uint64_t p = addr / TSJ_PAGE; addr < below && p * TSJ_PAGE < below; p++) {
        uint64_t lo = p * TSJ_PAGE > addr ? p * TSJ_PAGE : addr;
        uint64_t hi = (p + 1) * TSJ_PAGE < below ? (p + 1) * TSJ_PAGE : below;
        if (f->journaled.n && pm_get(&f->journaled, p)) {
            if (run_hi != lo) {
                if (run_hi > run_lo && pwrite_full(f->fd, src + (run_lo - addr), run_hi - run_lo, run_lo) < 0)
                    return fail(f), -1;
                run_lo = lo;
            }
            run_hi = hi;
            continue;
        }
        unsigned char *pg = pm_get(&f->overlay, p);
        if (!pg) {
            if (!(pg = malloc(TSJ_PAGE))) return fail(f), -1;
            if (pread_full(f->fd, pg, page_len(f, p), p * TSJ_PAGE) < 0 || pm_put(&f->overlay, p, pg) < 0) {
                free(pg);
                return fail(f), -1;
            }
            f->overlay_bytes += TSJ_PAGE;
        }
        memcpy(pg + (lo - p * TSJ_PAGE), src + (lo - addr), hi - lo);
    }
    if (run_hi > run_lo && pwrite_full(f->fd, src + (run_lo - addr), run_hi - run_lo, run_lo) < 0)
        return fail(f), -1;
    if (end > f->e0) {
        uint64_t from = addr > f->e0 ? addr : f->e0;
        if (pwrite_full(f->fd, src + (from - addr), end - from, from) < 0) return fail(f), -1;
    }
    if (end > f->eof) f->eof = end;
    if (f->overlay_bytes > f->spill_at && spill(f) < 0) return -1;
    return 0;
}

static herr_t drv_flush(H5FD_t *file, hid_t dxpl, hbool_t closing) {
    (void)dxpl, (void)closing;
    tsj_file *f = (tsj_file *)file;
    if (!f->writable || f->failed) return 0;
    return spill(f) < 0 ? -1 : 0;
}

static herr_t drv_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing) {
    (void)dxpl;
    tsj_file *f = (tsj_file *)file;
    if (!f->writable || f->failed) return 0;
    /* Never below E0 inside a unit: a rollback needs those bytes. A closing file has been
       flushed whole, so its unit ends first and the file then drops the space HDF5 freed at
       its end, as sec2 does. */
    if (closing && end_unit(f) < 0) return -1;
    uint64_t to = closing || f->eoa > f->e0 ? f->eoa : f->e0;
    if (to == f->eof) return 0;
    if (ftruncate(f->fd, (off_t)to) < 0) return fail(f), -1;
    f->eof = to;
    return 0;
}

static herr_t drv_lock(H5FD_t *file, hbool_t rw) {
    tsj_file *f = (tsj_file *)file;
    if (flock(f->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0 && errno != ENOSYS) return -1;
    return 0;
}

static herr_t drv_unlock(H5FD_t *file) {
    tsj_file *f = (tsj_file *)file;
    if (flock(f->fd, LOCK_UN) < 0 && errno != ENOSYS) return -1;
    return 0;
}

static const H5FD_class_t tsj_class = {
    .name = "tsstore-journal",
    .maxaddr = (haddr_t)(((uint64_t)1 << 63) - 1),
    .fc_degree = H5F_CLOSE_WEAK,
    .open = drv_open,
    .close = drv_close,
    .cmp = drv_cmp,
    .query = drv_query,
    .get_eoa = drv_get_eoa,
    .set_eoa = drv_set_eoa,
    .get_eof = drv_get_eof,
    .get_handle = drv_get_handle,
    .read = drv_read,
    .write = drv_write,
    .flush = drv_flush,
    .truncate = drv_truncate,
    .lock = drv_lock,
    .unlock = drv_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

static hid_t driver(void) {
    if (driver_id < 0 || H5Iis_valid(driver_id) <= 0) driver_id = H5FDregister(&tsj_class);
    return driver_id;
}

/* ---- routing libnetcdf's opens ---------------------------------------------------------- */

static hid_t with_driver(hid_t fapl) {
    hid_t copy = H5Pcopy(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl);
    hid_t d = driver();
    if (copy < 0 || d < 0 || H5Pset_driver(copy, d, NULL) < 0) {
        if (copy >= 0) H5Pclose(copy);
        return -1;
    }
    return copy;
}

static hid_t wrap_H5Fopen(const char *name, unsigned flags, hid_t fapl) {
    if (!arm.armed) return H5Fopen(name, flags, fapl);
    hid_t f2 = with_driver(fapl);
    if (f2 < 0) return -1;
    hid_t id = H5Fopen(name, flags, f2);
    H5Pclose(f2);
    return id;
}

static hid_t wrap_H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl) {
    if (!arm.armed) return H5Fcreate(name, flags, fcpl, fapl);
    hid_t f2 = with_driver(fapl);
    if (f2 < 0) return -1;
    hid_t id = H5Fcreate(name, flags, fcpl, f2);
    H5Pclose(f2);
    return id;
}

static int routed = -1; /* -1 not tried, 0 impossible, 1 done */

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
#define TSJ_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define TSJ_R_GLOB_DAT R_X86_64_GLOB_DAT
#else
#define TSJ_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define TSJ_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

static int set_slot(void **slot, void *fn, uintptr_t relro_lo, uintptr_t relro_hi) {
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)slot & ~(uintptr_t)(pg - 1);
    if (mprotect((void *)a, (size_t)pg, PROT_READ | PROT_WRITE) < 0) return -1;
    *slot = fn;
    if ((uintptr_t)slot >= relro_lo && (uintptr_t)slot < relro_hi) mprotect((void *)a, (size_t)pg, PROT_READ);
    return 0;
}

static int route_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *patched = data;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libnetcdf.so", 12) != 0) return 0;
    ElfW(Addr) load = info->dlpi_addr;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t relro_lo = 0, relro_hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(load + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) relro_lo = load + ph->p_vaddr, relro_hi = relro_lo + ph->p_memsz;
    }
    if (!dyn) return 1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *tables[2] = {NULL, NULL};
    size_t sizes[2] = {0, 0};
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        /* glibc relocates these entries in place; other loaders may not. */
        ElfW(Addr) p = d->d_un.d_ptr < load ? d->d_un.d_ptr + load : d->d_un.d_ptr;
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: strtab = (const char *)p; break;
        case DT_JMPREL: tables[0] = (const ElfW(Rela) *)p; break;
        case DT_PLTRELSZ: sizes[0] = d->d_un.d_val; break;
        case DT_RELA: tables[1] = (const ElfW(Rela) *)p; break;
        case DT_RELASZ: sizes[1] = d->d_un.d_val; break;
        }
    }
    if (!symtab || !strtab) return 1;
    for (int t = 0; t < 2; t++) {
        if (!tables[t]) continue;
        for (size_t i = 0; i < sizes[t] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *r = &tables[t][i];
            unsigned long type = ELF64_R_TYPE(r->r_info);
            if (type != TSJ_R_JUMP_SLOT && type != TSJ_R_GLOB_DAT) continue;
            const char *sym = strtab + symtab[ELF64_R_SYM(r->r_info)].st_name;
            void *fn = strcmp(sym, "H5Fopen") == 0     ? (void *)wrap_H5Fopen
                       : strcmp(sym, "H5Fcreate") == 0 ? (void *)wrap_H5Fcreate
                                                       : NULL;
            if (fn && set_slot((void **)(load + r->r_offset), fn, relro_lo, relro_hi) == 0) (*patched)++;
        }
    }
    return 1;
}

static void route(void) {
    int patched = 0;
    dl_iterate_phdr(route_object, &patched);
    routed = patched >= 2;
}
#else
static void route(void) { routed = 0; }
#endif

int tsj_active(void) {
    if (routed < 0) {
        route();
    }
    return routed == 1;
}

void tsj_arm(size_t spill_bytes) {
    if (!tsj_active()) return;
    arm.armed = 1;
    arm.spill = spill_bytes;
    last_failure.err = 0;
}

void tsj_disarm(void) { arm.armed = 0; }

hid_t tsj_fapl(size_t spill_bytes) {
    if (routed < 0) tsj_active(); /* initialises the CRC table with the routing */
    arm.spill = spill_bytes;
    return with_driver(H5P_DEFAULT);
}

tsj_file *tsj_lookup(const char *path) {
    struct stat st;
    if (stat(path, &st) < 0) return NULL;
    for (tsj_file *f = open_files; f; f = f->next)
        if (f->dev == st.st_dev && f->ino == st.st_ino) return f;
    return NULL;
}

int tsj_end_unit(tsj_file *f, char *msg, size_t msglen) {
    if (f->failed || end_unit(f) < 0) return tsj_failure(f, msg, msglen);
    return 0;
}

int tsj_failed(const tsj_file *f) { return f->failed; }

void tsj_fail_opens_for_testing(int err) { arm.fail_opens = err; }

void tsj_fail_for_testing(tsj_file *f, int err) {
    errno = err;
    fail(f);
}

int tsj_failure(tsj_file *f, char *msg, size_t msglen) {
    if (!f->failed) return 0;
    snprintf(msg, msglen,
             "writing the NetCDF file or its journal %s failed (%s), so the file refuses further I/O; close the store "
             "and open it again, which rolls the file back to its last commit",
             f->jpath, strerror(f->failed));
    return f->failed;
}

int tsj_take_failure(const char *path, char *msg, size_t msglen) {
    struct stat st;
    int err = last_failure.err;
    if (!err || stat(path, &st) < 0 || st.st_dev != last_failure.dev || st.st_ino != last_failure.ino) return 0;
    snprintf(msg, msglen, "%s", last_failure.msg);
    last_failure.err = 0;
    return err;
}

void tsj_stats(tsj_file *f, uint64_t *journal_bytes, uint64_t *spills) {
    *journal_bytes = f->stat_journal_bytes;
    *spills = f->stat_spills;
}

/* ---- recovery ---------------------------------------------------------------------------- */

int tsj_recover(const char *path, int may_write, int *busy, char *msg, size_t msglen) {
    *busy = 0;
    size_t nl = strlen(path);
    char *jpath = malloc(nl + sizeof "-journal");
    if (!jpath) return snprintf(msg, msglen, "out of memory"), -1;
    memcpy(jpath, path, nl);
    memcpy(jpath + nl, "-journal", sizeof "-journal");
    int rc = 0, jfd = -1, fd = -1;
    unsigned char *buf = NULL;
    struct stat js, ns;
    /* O_NONBLOCK: a FIFO at the journal's path must not block the open (and with it every
       store of the process, under the netcdf lock); O_NOFOLLOW: no symlinks. */
    jfd = open(jpath, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (jfd < 0 && errno == ENOENT) goto out; /* no journal */
    if (jfd < 0 || !journal_shaped(jfd, &js)) {
        snprintf(msg, msglen,
                 "%s is not a journal of this library (not a regular file that is empty or starts with its magic); "
                 "move it away to open %s",
                 jpath, path);
        rc = -1;
        goto out;
    }
    unsigned char h[TSJ_HDR_LEN];
    int hot = js.st_size >= TSJ_HDR_LEN && pread_full(jfd, h, TSJ_HDR_LEN, 0) == 0 && header_valid(h);
    if (!hot && js.st_size >= 8 && js.st_size >= TSJ_HDR_LEN &&
        (get32(h + 8) != 2 || get32(h + 12) != TSJ_PAGE) && get32(h + 40) == crc_update(0, h, 40)) {
        /* A whole, checksummed header this build cannot play (another page size or version). */
        snprintf(msg, msglen, "%s is a hot journal this build cannot play back (version %u, page size %u); it is kept",
                 jpath, get32(h + 8), get32(h + 12));
        rc = -1;
        goto out;
    }
    /* Whoever touches the pair must first own the .nc the way a writer does: a live writer
       in another process holds its exclusive lock (the driver takes it whatever HDF5's own
       locking is set to), and its journal is none of our business. */
    fd = open(path, (may_write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0 && may_write && errno == EACCES) fd = open(path, O_RDONLY | O_CLOEXEC), may_write = 0;
    if (fd < 0) goto out; /* the open that follows reports the missing file */
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EWOULDBLOCK) {
            /* A live writer: 2 tells a reader that the file is in the middle of a unit. */
            *busy = hot ? 2 : 1;
            goto out;
        }
        /* No locks on this filesystem: nobody can tell a live writer from a dead one, and a
           hot journal left unplayed would be lost at the next write; go on. */
        if (errno != ENOSYS && errno != ENOLCK && errno != EOPNOTSUPP) {
            snprintf(msg, msglen, "locking %s to check its journal: %s", path, strerror(errno));
            rc = -1;
            goto out;
        }
    }
    if (!hot) {
        /* An empty journal (a writer's between units, or left by a kill right after one
           ended), or one whose header never became whole: nothing to undo. */
        if (may_write) unlink(jpath);
        goto out;
    }
    if (!may_write) {
        snprintf(msg, msglen,
                 "%s has a hot journal %s: a writer stopped in the middle of a write; open the store for writing once "
                 "(as a user who may write both files) to roll the file back to its last commit",
                 path, jpath);
        rc = -1;
        goto out;
    }
    uint64_t e0 = get64(h + 16), nonce = get64(h + 24), ino = get64(h + 32);
    /* The journal names the file it was written for; inside a unit that file never shrinks
       below E0 (drv_truncate). Another file — the .nc replaced or restored after the writer
       died, or a copy — must not get its pages. */
    if (fstat(fd, &ns) < 0 || (uint64_t)ns.st_ino != ino || (uint64_t)ns.st_size < e0) {
        snprintf(msg, msglen,
                 "%s has a hot journal %s written for another file (inode %llu, at least %llu bytes; this one is inode "
                 "%llu, %lld bytes): it is not the file the journal belongs to (was it replaced, restored or copied?); "
                 "open the original, or move the journal away to open this file as it is",
                 path, jpath, (unsigned long long)ino, (unsigned long long)e0, (unsigned long long)ns.st_ino,
                 (long long)ns.st_size);
        rc = -1;
        goto out;
    }
    if (!(buf = malloc(TSJ_REC_LEN + TSJ_PAGE))) {
        snprintf(msg, msglen, "out of memory");
        rc = -1;
        goto out;
    }
    uint64_t at = TSJ_HDR_LEN, restored = 0, size = (uint64_t)js.st_size;
    while (at + TSJ_REC_LEN <= size) {
        if (pread_full(jfd, buf, TSJ_REC_LEN, at) < 0) break;
        uint64_t off = get64(buf);
        uint64_t len = get32(buf + 8);
        /* A record cut short, or one whose check fails, was being written when the writer
           died, so its page had not been overwritten yet: the records before it are the
           whole undo (as SQLite reads its journal). */
        if (len == 0 || len > TSJ_PAGE || at + TSJ_REC_LEN + len > size) break;
        if (pread_full(jfd, buf + TSJ_REC_LEN, len, at + TSJ_REC_LEN) < 0) break;
        if (record_crc(nonce, buf, buf + TSJ_REC_LEN, (uint32_t)len) != get32(buf + 12)) break;
        /* A whole record, checksummed by this unit, that cannot be a page of the file: the
           journal is not what this code wrote. Nothing is written; it is kept. */
        if (off % TSJ_PAGE != 0 || off + len > e0 || (len < TSJ_PAGE && off + len != e0)) {
            snprintf(msg, msglen, "%s: record %llu (offset %llu, %llu bytes) is not a page of %s below %llu; the journal is kept and the file not touched",
                     jpath, (unsigned long long)restored, (unsigned long long)off, (unsigned long long)len, path,
                     (unsigned long long)e0);
            rc = -1;
            goto out;
        }
        at += TSJ_REC_LEN + len, restored++;
    }
    /* Every record checked: now play them back. */
    for (uint64_t p = TSJ_HDR_LEN, i = 0; i < restored; i++) {
        uint64_t len;
        if (pread_full(jfd, buf, TSJ_REC_LEN, p) < 0 || (len = get32(buf + 8), pread_full(jfd, buf + TSJ_REC_LEN, len, p + TSJ_REC_LEN) < 0) ||
            pwrite_full(fd, buf + TSJ_REC_LEN, len, get64(buf)) < 0) {
            snprintf(msg, msglen, "rolling %s back from %s: %s", path, jpath, strerror(errno));
            rc = -1;
            goto out;
        }
        p += TSJ_REC_LEN + len;
    }
    if (ftruncate(fd, (off_t)e0) < 0 || fsync(fd) < 0) {
        snprintf(msg, msglen, "rolling %s back from %s: %s", path, jpath, strerror(errno));
        rc = -1;
        goto out;
    }
    close(jfd);
    jfd = -1;
    if (unlink(jpath) < 0 || fsync_dir_of(jpath) < 0) {
        snprintf(msg, msglen, "removing %s after rolling %s back: %s", jpath, path, strerror(errno));
        rc = -1;
        goto out;
    }
    snprintf(msg, msglen, "rolled %s back to its last commit: %llu pages restored from %s, length %llu", path,
             (unsigned long long)restored, jpath, (unsigned long long)e0);
    rc = 1;
out:
    free(buf);
    if (fd >= 0) close(fd); /* drops the probe lock */
    if (jfd >= 0) close(jfd);
    free(jpath);
    return rc;
}
