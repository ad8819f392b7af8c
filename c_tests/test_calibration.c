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
  printf("fit a=%g b=%g r2=%g over %u points\n", fit.a, fit.b, fit.r2, fit.num_points);
  return 0;
}
