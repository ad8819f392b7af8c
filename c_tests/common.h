/* Helpers shared by the C tests (C99 and C++). */
#ifndef BLASST_TEST_COMMON_H
#define BLASST_TEST_COMMON_H

#include <blasst.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP_CODE 77

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,      \
              __LINE__, #cond, blasst_last_error());                                \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

/* The call returns `want` and the last error contains `needle`. */
#define EXPECT_STATUS(call, want, needle)                                           \
  do {                                                                              \
    blasst_status got_ = (call);                                                    \
    if (got_ != (want) || strstr(blasst_last_error(), (needle)) == NULL) {          \
      fprintf(stderr, "%s:%d: %s returned %d (want %d), message \"%s\" (want \"%s\")\n", \
              __FILE__, __LINE__, #call, (int)got_, (int)(want), blasst_last_error(), \
              (needle));                                                            \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

/* Deterministic pseudo-random numbers in [-1, 1). */
static inline float test_rand(unsigned long long *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (float)((*state >> 40) & 0xFFFFFF) / (float)0x800000 - 1.0f;
}

/* A valid CPU f32 call over contiguous [batch, seq, heads, dim] buffers. */
static inline void test_params(blasst_attn_params *p, const float *q, const float *k, const float *v,
                               float *o, uint32_t b, uint32_t lq, uint32_t lk, uint32_t hq,
                               uint32_t hkv, uint32_t d) {
  blasst_attn_params_init(p);
  p->device = BLASST_DEVICE_CPU;
  p->dtype = BLASST_DTYPE_F32;
  p->batch_size = b;
  p->num_q_heads = hq;
  p->num_kv_heads = hkv;
  p->head_dim = d;
  p->max_seqlen_q = lq;
  p->max_seqlen_kv = lk;
  p->q = q;
  p->q_batch_stride = (int64_t)lq * hq * d;
  p->q_row_stride = (int64_t)hq * d;
  p->q_head_stride = d;
  p->o = o;
  p->o_batch_stride = p->q_batch_stride;
  p->o_row_stride = p->q_row_stride;
  p->o_head_stride = d;
  p->k = k;
  p->k_batch_stride = (int64_t)lk * hkv * d;
  p->k_row_stride = (int64_t)hkv * d;
  p->k_head_stride = d;
  p->v = v;
  p->v_batch_stride = p->k_batch_stride;
  p->v_row_stride = p->k_row_stride;
  p->v_head_stride = d;
}

#endif
