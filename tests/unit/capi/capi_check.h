/* A tiny assert harness for the C API's tests, which are C programs (compiled as C11): CHECK
 * records a failure with its line and the library's last error, RUN_TEST runs one test function,
 * and main returns capi_failures != 0. Also the protobuf wire encoding the tests need to write a
 * ParticipantConfig by hand, as an app without protobuf would, and to drop a field of a state. */
#ifndef FEDMF_TESTS_UNIT_CAPI_CAPI_CHECK_H_
#define FEDMF_TESTS_UNIT_CAPI_CAPI_CHECK_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fedmf/fedmf_client.h"

static int capi_failures = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              fedmf_last_error());                                                             \
      ++capi_failures;                                                                         \
    }                                                                                          \
  } while (0)

#define RUN_TEST(test)                                                                   \
  do {                                                                                   \
    const int before = capi_failures;                                                    \
    test();                                                                              \
    printf("%s %s\n", capi_failures == before ? "[       OK ]" : "[  FAILED  ]", #test); \
  } while (0)

/* Appends the varint `v` at out[*n]. */
static void capi_varint(uint8_t* out, size_t* n, uint64_t v) {
  while (v >= 0x80) {
    out[(*n)++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[(*n)++] = (uint8_t)v;
}

/* A serialized fedmf.v1.ParticipantConfig (proto/fedmf/v1/mobile.proto) in `out` (>= 48 bytes):
 * fields 1 participant_id, 2 num_items, 3 chunk_bytes, 4-5 the insecure noise seed (seeded when
 * seed != 0), all varints. Returns its length. */
static size_t capi_config(uint8_t* out, uint32_t id, int32_t num_items, uint64_t chunk_bytes,
                          uint64_t seed) {
  size_t n = 0;
  out[n++] = 0x08;
  capi_varint(out, &n, id);
  out[n++] = 0x10;
  capi_varint(out, &n, (uint64_t)(int64_t)num_items);
  if (chunk_bytes != 0) {
    out[n++] = 0x18;
    capi_varint(out, &n, chunk_bytes);
  }
  if (seed != 0) {
    out[n++] = 0x20;
    capi_varint(out, &n, 1);
    out[n++] = 0x28;
    capi_varint(out, &n, seed);
  }
  return n;
}

/* Reads the varint at buf[*at] (*at < len), advancing *at; 0 if it runs past len. */
static inline int capi_read_varint(const uint8_t* buf, size_t len, size_t* at, uint64_t* v) {
  *v = 0;
  for (int shift = 0; *at < len && shift < 64; shift += 7) {
    const uint8_t b = buf[(*at)++];
    *v |= (uint64_t)(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return 1;
  }
  return 0;
}

/* Removes every top-level occurrence of field `field` from the serialized message buf[0, len),
 * in place; returns the new length, or 0 for bytes that are not a well-formed message. */
static inline size_t capi_strip_field(uint8_t* buf, size_t len, uint32_t field) {
  size_t read = 0, write = 0;
  while (read < len) {
    const size_t start = read;
    uint64_t tag = 0, v = 0;
    if (!capi_read_varint(buf, len, &read, &tag)) return 0;
    switch (tag & 7) {
      case 0:
        if (!capi_read_varint(buf, len, &read, &v)) return 0;
        break;
      case 1:
        read += 8;
        break;
      case 2:
        if (!capi_read_varint(buf, len, &read, &v) || v > len - read) return 0;
        read += (size_t)v;
        break;
      case 5:
        read += 4;
        break;
      default:
        return 0;
    }
    if (read > len) return 0;
    if ((tag >> 3) == field) continue;
    for (size_t k = start; k < read; ++k) buf[write++] = buf[k];
  }
  return write;
}

#endif /* FEDMF_TESTS_UNIT_CAPI_CAPI_CHECK_H_ */
