/*
 * sha256.h — SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), written for
 * the authentication of the node-to-front-end state stream (stream.c).  No
 * external crypto library: tests/unit/test_sha256.c checks the FIPS 180-2
 * and RFC 4231 vectors.
 */
#ifndef ML_SHA256_H
#define ML_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
    uint32_t h[8];
    uint64_t len;            /* bytes hashed so far */
    uint8_t buf[64];
    unsigned nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
void sha256(const void *p, size_t n, uint8_t out[SHA256_LEN]);

struct hmac256 {
    struct sha256 in, out;
};

void hmac256_init(struct hmac256 *h, const void *key, size_t klen);
void hmac256_update(struct hmac256 *h, const void *p, size_t n);
void hmac256_final(struct hmac256 *h, uint8_t out[SHA256_LEN]);
void hmac256(const void *key, size_t klen, const void *p, size_t n, uint8_t out[SHA256_LEN]);

/* Constant-time comparison: 0 when equal. */
int ct_memcmp(const void *a, const void *b, size_t n);

#endif
