/*
 * rankfile_patch.c — change header fields of a rank file in place, for tests
 * of what the tool does with skewed clocks and bad input.
 *
 *   rankfile_patch FILE key=value ...
 *
 * keys: version, job_id, rank, size, init_offset, final_offset (ns, added
 * to the recorded offset), init_valid, final_valid, magic (0 = destroy it),
 * nchunks, chunk_size, ncomms.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../format/mlformat.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rankfile_patch FILE key=value ...\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    struct ml_header *h = mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "rankfile_patch: '%s' is not key=value\n", argv[i]);
            return 2;
        }
        *eq = 0;
        const char *k = argv[i];
        long long v = strtoll(eq + 1, NULL, 0);
        if (!strcmp(k, "version")) h->version = (uint32_t)v;
        else if (!strcmp(k, "job_id")) h->job_id = (uint64_t)v;
        else if (!strcmp(k, "rank")) h->rank = (int32_t)v;
        else if (!strcmp(k, "size")) h->size = (int32_t)v;
        else if (!strcmp(k, "init_offset")) h->sync_init.offset_ns += v;
        else if (!strcmp(k, "final_offset")) h->sync_final.offset_ns += v;
        else if (!strcmp(k, "init_valid")) h->sync_init.valid = (uint32_t)v;
        else if (!strcmp(k, "final_valid")) h->sync_final.valid = (uint32_t)v;
        else if (!strcmp(k, "magic")) h->magic[0] = v ? 'M' : 'X';
        else if (!strcmp(k, "nchunks")) h->nchunks = (uint32_t)v;
        else if (!strcmp(k, "chunk_size")) h->chunk_size = (uint32_t)v;
        else if (!strcmp(k, "ncomms")) h->ncomms = (uint32_t)v;
        else {
            fprintf(stderr, "rankfile_patch: unknown key '%s'\n", k);
            return 2;
        }
    }
    munmap(h, sizeof *h);
    close(fd);
    return 0;
}
