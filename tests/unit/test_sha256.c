/*
 * test_sha256.c — SHA-256 (live/sha256.c) against the FIPS 180-2 examples
 * (and the empty message), HMAC-SHA-256 against RFC 4231 test cases 1-7,
 * plus split updates at every boundary.  Built and run by
 * tests/cases/stream_units.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

static int failed;

static void hex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}

static void check(const char *what, const uint8_t *got, size_t n, const char *want)
{
    char h[2 * SHA256_LEN + 1];
    hex(got, n, h);
    if (strcmp(h, want)) {
        fprintf(stderr, "%s: got %s, want %s\n", what, h, want);
        failed = 1;
    } else {
        printf("ok %s\n", what);
    }
}

static void sha_case(const char *what, const void *p, size_t n, const char *want)
{
    uint8_t d[SHA256_LEN];
    sha256(p, n, d);
    check(what, d, sizeof d, want);
    /* the same, fed in two pieces at every split point (short inputs) */
    if (n <= 200)
        for (size_t k = 0; k <= n; k++) {
            struct sha256 s;
            sha256_init(&s);
            sha256_update(&s, p, k);
            sha256_update(&s, (const char *)p + k, n - k);
            sha256_final(&s, d);
            char h[2 * SHA256_LEN + 1];
            hex(d, sizeof d, h);
            if (strcmp(h, want)) {
                fprintf(stderr, "%s split at %zu: got %s\n", what, k, h);
                failed = 1;
                break;
            }
        }
}

static void hmac_case(const char *what, const void *key, size_t kl, const void *p, size_t n, const char *want,
                      size_t trunc)
{
    uint8_t d[SHA256_LEN];
    hmac256(key, kl, p, n, d);
    check(what, d, trunc, want);
}

int main(void)
{
    /* FIPS 180-2, appendix B */
    sha_case("sha256 abc", "abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_case("sha256 448 bits", m2, strlen(m2), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *mil = malloc(1000000);
    memset(mil, 'a', 1000000);
    sha_case("sha256 million a", mil, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    {   /* the same million in odd pieces */
        struct sha256 s;
        uint8_t d[SHA256_LEN];
        sha256_init(&s);
        for (size_t o = 0; o < 1000000;) {
            size_t k = 1 + (o * 7) % 131;
            if (k > 1000000 - o) k = 1000000 - o;
            sha256_update(&s, mil + o, k);
            o += k;
        }
        sha256_final(&s, d);
        check("sha256 million a in pieces", d, sizeof d,
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    free(mil);
    sha_case("sha256 empty", "", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    /* RFC 4231 */
    uint8_t k1[20], k3[20], d3[50], k4[25], d4[50], k5[20], k6[131];
    memset(k1, 0x0b, sizeof k1);
    hmac_case("hmac rfc4231 1", k1, 20, "Hi There", 8,
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32);
    hmac_case("hmac rfc4231 2", "Jefe", 4, "what do ya want for nothing?", 28,
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 32);
    memset(k3, 0xaa, sizeof k3);
    memset(d3, 0xdd, sizeof d3);
    hmac_case("hmac rfc4231 3", k3, 20, d3, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 32);
    for (int i = 0; i < 25; i++) k4[i] = (uint8_t)(i + 1);
    memset(d4, 0xcd, sizeof d4);
    hmac_case("hmac rfc4231 4", k4, 25, d4, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 32);
    memset(k5, 0x0c, sizeof k5);
    hmac_case("hmac rfc4231 5 (truncated)", k5, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b", 16);
    memset(k6, 0xaa, sizeof k6);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    hmac_case("hmac rfc4231 6", k6, 131, m6, strlen(m6),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 32);
    const char *m7 = "This is a test using a larger than block-size key and a larger than block-size data. "
                     "The key needs to be hashed before being used by the HMAC algorithm.";
    hmac_case("hmac rfc4231 7", k6, 131, m7, strlen(m7),
              "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 32);

    if (ct_memcmp("abc", "abc", 3) != 0 || ct_memcmp("abc", "abd", 3) == 0) {
        fprintf(stderr, "ct_memcmp wrong\n");
        failed = 1;
    }
    if (failed) {
        printf("test_sha256: FAILED\n");
        return 1;
    }
    printf("test_sha256: all vectors ok\n");
    return 0;
}
