/*
 * evbytes.c — bytes on disk per recorded event (bench/run).
 *
 *   evbytes RANKFILE...
 *
 * Maps each rank file read-only, walks its chunks in header order
 * (0 .. hdr.nchunks-1), sums the chunks' `committed` byte counters and
 * counts the records by type.  Prints one line of key=value totals:
 *
 *   files chunks committed records calls p2p p2p_bytes allocated
 *   changes stall_ns stall_max_ns stall_p99_ns type<N>=count...
 *
 * calls counts the records that are MPI calls (CALL, P2P, P2P_REQ, COLL,
 * SENDRECV, COMPLETE); TIME, RESULT, LONGDUR, COMM, TYPE and COMPLETE_MORE
 * are not calls.  p2p_bytes is the bytes of the P2P records, allocated the
 * disk blocks of the files.  A record is words x 8 bytes long, or dur bytes
 * for a definition record (words == 0; docs/FORMAT.md).  Exits 1 on a file
 * that is not a rank file or whose records do not add up.
 *
 * changes, stall_ns, stall_max_ns: the chunk changes in the middle of a
 * thread's stream (chunks with seq > 0) and the time the calling thread lost
 * at them, from the records' own times (see below).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "../format/mlformat.h"

static uint64_t tcount[256], committed_total, chunks_total, records_total, calls_total;
static uint64_t p2p_bytes, alloc_total;
static uint64_t changes, stall_total_ns, stall_max_ns;
static uint64_t *stalls;            /* every change's stall, for the 99th percentile */
static size_t nstalls, stalls_cap;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int is_call(unsigned t)
{
    return t >= ML_REC_CALL && t <= ML_REC_COMPLETE;
}

static int one_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < ML_HEADER_SIZE) {
        fprintf(stderr, "evbytes: %s: too small for a rank file\n", path);
        close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    const unsigned char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        perror(path);
        return -1;
    }
    alloc_total += (uint64_t)st.st_blocks * 512;
    const struct ml_header *h = (const void *)m;
    int rc = 0;
    if (memcmp(h->magic, ML_MAGIC, 8) != 0 || h->version != ML_VERSION ||
        h->chunk_size < sizeof(struct ml_chunk) + 16 || h->chunks_off > len) {
        fprintf(stderr, "evbytes: %s: not an mpilens rank file (version %u)\n", path, h->version);
        rc = -1;
        goto out;
    }
    double ns_per_tick = 1.0;
    if (h->clock_kind == 1 && h->anchor1_ticks > h->anchor0_ticks && h->anchor1_ns > h->anchor0_ns)
        ns_per_tick = (double)(h->anchor1_ns - h->anchor0_ns) / (double)(h->anchor1_ticks - h->anchor0_ticks);
    uint32_t n = __atomic_load_n(&h->nchunks, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = h->chunks_off + (uint64_t)i * h->chunk_size;
        if (off + h->chunk_size > len) {
            fprintf(stderr, "evbytes: %s: chunk %u past the end of the file\n", path, i);
            rc = -1;
            break;
        }
        const struct ml_chunk *c = (const void *)(m + off);
        if (c->magic != ML_CHUNK_MAGIC) continue;   /* made ready, never handed out */
        uint32_t com = __atomic_load_n(&c->committed, __ATOMIC_ACQUIRE);
        if (com > h->chunk_size - sizeof *c) {
            fprintf(stderr, "evbytes: %s: chunk %u: committed %u > chunk\n", path, i, com);
            rc = -1;
            break;
        }
        chunks_total++;
        committed_total += com;
        const unsigned char *p = (const unsigned char *)(c + 1), *end = p + com;
        /* Stall of a chunk change: the runtime changes chunk while it
         * records the call that no longer fits (after that call's end), so
         * the time from the end of a later chunk's first call to the start
         * of its second call is the change, plus the usual gap. */
        uint64_t t = c->base_ticks, first_end = 0;
        int ncall = 0, pending_longdur = 0;
        while (p < end) {
            const struct ml_rec *r = (const void *)p;
            /* definition records (COMM, TYPE) have words == 0 and their
             * length in bytes in dur (docs/FORMAT.md) */
            uint64_t rl = r->words ? r->words * 8u : r->dur;
            if (rl < sizeof *r || rl % 8 != 0 || rl > (uint64_t)(end - p)) {
                fprintf(stderr, "evbytes: %s: chunk %u: bad record at +%td\n", path, i,
                        p - (const unsigned char *)(c + 1));
                rc = -1;
                break;
            }
            tcount[r->type]++;
            records_total++;
            if (is_call(r->type)) calls_total++;
            if (r->type == ML_REC_P2P) p2p_bytes += rl;
            if (r->type == ML_REC_TIME) {
                t = r->dt | (uint64_t)r->dur << 32;
            } else if (r->type == ML_REC_LONGDUR && pending_longdur) {
                first_end = t + (r->dt | (uint64_t)r->dur << 32);
                pending_longdur = 0;
            } else if (is_call(r->type) && c->seq > 0 && ncall < 2) {
                t += r->dt;
                if (ncall++ == 0) {
                    first_end = t + r->dur;
                    pending_longdur = r->dur == UINT32_MAX;
                } else if (t >= first_end) {
                    uint64_t ns = (uint64_t)((double)(t - first_end) * ns_per_tick);
                    changes++;
                    stall_total_ns += ns;
                    if (ns > stall_max_ns) stall_max_ns = ns;
                    if (nstalls == stalls_cap) {
                        stalls_cap = stalls_cap ? 2 * stalls_cap : 1024;
                        stalls = realloc(stalls, stalls_cap * sizeof *stalls);
                        if (!stalls) {
                            perror("evbytes");
                            exit(1);
                        }
                    }
                    stalls[nstalls++] = ns;
                }
            }
            p += rl;
        }
        if (rc) break;
    }
out:
    munmap((void *)m, len);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: evbytes RANKFILE...\n");
        return 2;
    }
    int bad = 0;
    for (int i = 1; i < argc; i++)
        if (one_file(argv[i]) != 0) bad = 1;
    uint64_t p99 = 0;
    if (nstalls) {
        qsort(stalls, nstalls, sizeof *stalls, cmp_u64);
        p99 = stalls[(nstalls * 99 + 99) / 100 - 1];
    }
    printf("files=%d chunks=%llu committed=%llu records=%llu calls=%llu p2p=%llu p2p_bytes=%llu "
           "allocated=%llu changes=%llu stall_ns=%llu stall_max_ns=%llu stall_p99_ns=%llu",
           argc - 1, (unsigned long long)chunks_total, (unsigned long long)committed_total,
           (unsigned long long)records_total, (unsigned long long)calls_total,
           (unsigned long long)tcount[ML_REC_P2P], (unsigned long long)p2p_bytes,
           (unsigned long long)alloc_total, (unsigned long long)changes,
           (unsigned long long)stall_total_ns, (unsigned long long)stall_max_ns, (unsigned long long)p99);
    for (int t = 0; t < 256; t++)
        if (tcount[t]) printf(" type%d=%llu", t, (unsigned long long)tcount[t]);
    printf("\n");
    return bad;
}
