/* CPU attention through the C ABI: dense output and LSE against a naive reference, skip
 * statistics on clear-margin input, and blasst_merge_states recombining two KV halves. */
#include "common.h"

#define LQ 37
#define LK 300
#define H 2
#define D 64

static float q[LQ * H * D], k[LK * H * D], v[LK * H * D], o[LQ * H * D], lse[LQ * H];

static void reference(int t, int h, int k0, int k1, float *out, float *out_lse) {
  double s[LK], m = -INFINITY, l = 0.0, scale = 1.0 / sqrt((double)D);
  int j, i;
  for (j = k0; j < k1; j++) {
    double dot = 0.0;
    for (i = 0; i < D; i++) dot += (double)q[(t * H + h) * D + i] * k[(j * H + h) * D + i];
    s[j] = dot * scale;
    if (s[j] > m) m = s[j];
  }
  for (i = 0; i < D; i++) out[i] = 0.0f;
  for (j = k0; j < k1; j++) l += exp(s[j] - m);
  for (j = k0; j < k1; j++) {
    double w = exp(s[j] - m) / l;
    for (i = 0; i < D; i++) out[i] += (float)(w * v[(j * H + h) * D + i]);
  }
  *out_lse = (float)(m + log(l));
}

int main(void) {
  unsigned long long st = 42;
  blasst_attn_params p;
  uint64_t stats[2] = {0, 0};
  size_t i;
  int t, h;
  float ref[D], ref_lse;
  for (i = 0; i < sizeof q / sizeof q[0]; i++) q[i] = test_rand(&st);
  for (i = 0; i < sizeof k / sizeof k[0]; i++) k[i] = test_rand(&st);
  for (i = 0; i < sizeof v / sizeof v[0]; i++) v[i] = test_rand(&st);

  /* Dense. */
  test_params(&p, q, k, v, o, 1, LQ, LK, H, H, D);
  p.lse = lse;
  p.skip_stats = stats;
  CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
  for (t = 0; t < LQ; t++)
    for (h = 0; h < H; h++) {
      reference(t, h, 0, LK, ref, &ref_lse);
      for (i = 0; i < D; i++) CHECK(fabsf(o[(t * H + h) * D + i] - ref[i]) < 1e-5f);
      CHECK(fabsf(lse[t * H + h] - ref_lse) < 1e-5f);
    }
  CHECK(stats[0] > 0 && stats[1] == 0);

  /* Clear margins: keys 0..9 carry a huge score along dimension 0, the rest are noise, so with
   * lambda = 1e-3 every tile after the first hot one is skipped. */
  for (t = 0; t < LQ; t++)
    for (h = 0; h < H; h++) q[(t * H + h) * D] = 12.0f;
  for (i = 0; i < LK; i++)
    for (h = 0; h < H; h++) k[(i * H + h) * D] = i < 10 ? 12.0f : 0.0f;
  stats[0] = stats[1] = 0;
  p.threshold_scale_factor = 1e-3f * LK;
  {
    blasst_attn_plan_info plan;
    CHECK(blasst_attn_plan(&p, &plan) == BLASST_OK);
    /* Forward order: tile 0 (hot) first, then every later tile is skipped. */
    plan.reverse_kv = 0;
    p.plan = &plan;
    CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
    {
      uint64_t tiles = (LK + plan.block_n - 1) / plan.block_n;
      uint64_t units = (uint64_t)H * ((LQ + plan.block_m - 1) / plan.block_m);
      CHECK(stats[0] == units * tiles);
      CHECK(stats[1] == units * (tiles - 1));
    }
    p.plan = NULL;
  }

  /* Two halves of the KV merged by LSE equal the full call. */
  {
    float *ov = (float *)malloc(sizeof(float) * 2 * LQ * H * D);
    float *sv = (float *)malloc(sizeof(float) * 2 * LQ * H);
    float *merged = (float *)malloc(sizeof(float) * LQ * H * D);
    float merged_lse[LQ * H];
    const int half = 128;
    CHECK(ov && sv && merged);
    p.threshold_scale_factor = 0.0f;
    p.skip_stats = NULL;
    CHECK(blasst_attn_run(&p, NULL) == BLASST_OK); /* o, lse = full */
    p.o = ov;
    p.lse = sv;
    p.max_seqlen_kv = half;
    CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
    p.o = ov + LQ * H * D;
    p.lse = sv + LQ * H;
    p.k = k + half * H * D;
    p.v = v + half * H * D;
    p.max_seqlen_kv = LK - half;
    CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
    CHECK(blasst_merge_states(BLASST_DEVICE_CPU, BLASST_DTYPE_F32, ov, sv, 2, LQ, H, D, merged,
                              merged_lse, NULL) == BLASST_OK);
    for (i = 0; i < (size_t)LQ * H * D; i++) CHECK(fabsf(merged[i] - o[i]) < 1e-5f);
    for (i = 0; i < (size_t)LQ * H; i++) CHECK(fabsf(merged_lse[i] - lse[i]) < 1e-5f);
    EXPECT_STATUS(blasst_merge_states(BLASST_DEVICE_CPU, BLASST_DTYPE_F32, ov, sv, 0, LQ, H, D,
                                      merged, NULL, NULL),
                  BLASST_ERROR_INVALID_ARGUMENT, "num_states = 0");
    free(ov);
    free(sv);
    free(merged);
  }
  printf("CPU attention, skip statistics and merge agree with the reference\n");
  return 0;
}
