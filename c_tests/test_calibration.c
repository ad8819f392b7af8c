/* Calibration fit and export: the fit recovers a known curve, the written config keeps its
 * other keys and is what the resolver then reads. */
#include "common.h"
#include <sys/stat.h>

int main(void) {
  double lambdas[30], sp[30];
  uint32_t lens[30];
  int n = 0, li, kk;
  const uint32_t L[3] = {1024, 4096, 16384};
  const double a = 500.0, b = 5.0;
  blasst_calib_fit fit, dec;
  char dir[] = "/tmp/blasst_calib_XXXXXX";
  char path[256];
  const char *comps[1] = {"transformer"};
  const char *ignore[1] = {"blocks.0.*"};
  blasst_resolver *r = NULL;
  float f;
  FILE *fp;
  for (li = 0; li < 3; li++)
    for (kk = 0; kk < 10; kk++) {
      double s = 0.02 + 0.1 * kk;
      sp[n] = s;
      lens[n] = L[li];
      lambdas[n] = a * exp(b * s) / L[li];
      n++;
    }
  CHECK(blasst_calibration_fit(lambdas, lens, sp, (size_t)n, &fit) == BLASST_OK);
  CHECK(fabs(fit.a - a) / a < 1e-9 && fabs(fit.b - b) < 1e-9 && fit.r2 > 0.999999);
  CHECK(fit.num_points == 24);
  EXPECT_STATUS(blasst_calibration_fit(lambdas, lens, sp, 2, &fit), BLASST_ERROR_INVALID_ARGUMENT, "at least 3");

  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/transformer", dir);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/transformer/config.json", dir);
  fp = fopen(path, "w");
  CHECK(fp != NULL);
  fputs("{\"_class_name\": \"MyModel\", \"num_layers\": 40}", fp);
  fclose(fp);
  dec = fit;
  dec.a = 50.0;
  CHECK(blasst_calibration_write(path, &fit, &dec, ignore, 1) == BLASST_OK);
  {
    char text[4096];
    size_t got;
    fp = fopen(path, "r");
    CHECK(fp != NULL);
    got = fread(text, 1, sizeof text - 1, fp);
    text[got] = 0;
    fclose(fp);
    CHECK(strstr(text, "\"num_layers\": 40") != NULL);
    CHECK(strstr(text, "skip_softmax") != NULL);
  }
  CHECK(blasst_resolver_new("{\"target_sparsity\": 0.7}", dir, comps, 1, &r) == BLASST_OK);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.3.attn1", BLASST_PHASE_PREFILL, 4096, NAN, &f) == BLASST_OK);
  CHECK(fabs(f - a * exp(b * 0.7)) / f < 1e-5);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.3.attn1", BLASST_PHASE_DECODE, 4096, NAN, &f) == BLASST_OK);
  CHECK(fabs(f - 50.0 * exp(b * 0.7)) / f < 1e-5);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.0.attn1", BLASST_PHASE_PREFILL, 4096, NAN, &f) == BLASST_OK && f == 0.0f);
  blasst_resolver_free(r);
  EXPECT_STATUS(blasst_calibration_write("/nonexistent/config.json", &fit, NULL, NULL, 0), BLASST_ERROR_IO, "/nonexistent/config.json");
  /* The one-pass sweep on the CPU: counts per candidate, monotone in lambda, and equal to a
   * separate run's skipped tiles for lambda <= 1. */
  {
    enum { L = 1024, H = 2, D = 64 };
    float *q = (float *)calloc((size_t)L * H * D, sizeof(float));
    float *k = (float *)calloc((size_t)L * H * D, sizeof(float));
    float *v = (float *)calloc((size_t)L * H * D, sizeof(float));
    float *o = (float *)calloc((size_t)L * H * D, sizeof(float));
    const float lams[4] = {0.001f, 0.0625f, 0.5f, 1.0f};
    uint64_t skipped[4] = {0, 0, 0, 0}, visited = 0, stats[2] = {0, 0};
    unsigned long long st = 3;
    blasst_attn_params p;
    int i, c;
    CHECK(q && k && v && o);
    for (i = 0; i < L * H * D; i++) {
      q[i] = test_rand(&st);
      k[i] = test_rand(&st);
      v[i] = test_rand(&st);
    }
    /* keys 0..15 are hot for every query: everything after tile 0 is far below. */
    for (i = 0; i < L * H; i++) q[i * D] = 12.0f;
    for (i = 0; i < L; i++)
      for (c = 0; c < H; c++) k[(i * H + c) * D] = i < 16 ? 12.0f : 0.0f;
    test_params(&p, q, k, v, o, 1, L, L, H, H, D);
    {
      blasst_attn_plan_info plan;
      CHECK(blasst_attn_plan(&p, &plan) == BLASST_OK);
      plan.reverse_kv = 0; /* tile 0 first, so every later tile is skippable */
      p.plan = &plan;
      CHECK(blasst_calibrate_sweep(&p, lams, 4, skipped, &visited, NULL) == BLASST_OK);
      CHECK(visited > 0 && skipped[1] > 0);
      for (c = 1; c < 4; c++) CHECK(skipped[c] >= skipped[c - 1]);
      p.threshold_scale_factor = 0.0625f * L;
      p.skip_stats = stats;
      CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
      CHECK(stats[0] == visited && stats[1] == skipped[1]);
    }
    EXPECT_STATUS(blasst_calibrate_sweep(&p, lams, 0, skipped, &visited, NULL), BLASST_ERROR_INVALID_ARGUMENT, "num_lambdas = 0");
    free(q);
    free(k);
    free(v);
    free(o);
  }
  printf("fit a=%g b=%g r2=%g over %u points\n", fit.a, fit.b, fit.r2, fit.num_points);
  return 0;
}
