/* The resolver through the C ABI: threshold, calibrated target_sparsity per component, ignore
 * patterns, the timestep gate, describe, and handle safety. */
#include "common.h"
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
}

int main(void) {
  char dir[] = "/tmp/blasst_ckpt_XXXXXX";
  char path[256];
  const char *comps[3] = {"transformer", "transformer_2", "missing"};
  blasst_resolver *r = NULL;
  float f = -1.0f;
  size_t need = 0;
  char *desc;
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/transformer", dir);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/transformer/config.json", dir);
  write_file(path,
             "{\"_class_name\": \"WanTransformer3DModel\", \"sparse_attention_config\": "
             "{\"config_groups\": {\"group_0\": {\"algorithm\": \"skip_softmax\", "
             "\"targets\": [\"WanAttention\"], \"ignore\": [\"blocks.0.attn1\", \"blocks.1.*\"], "
             "\"threshold_scale_factor\": {\"formula\": \"a * exp(b * target_sparsity)\", "
             "\"coefficients\": {\"a\": 2822.6209952221557, \"b\": 4.388250623520793}}, "
             "\"target_sparsity\": 0.7, \"disabled_until_timestep\": 0.93}}}}");
  snprintf(path, sizeof path, "%s/transformer_2", dir);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/transformer_2/config.json", dir);
  write_file(path,
             "{\"sparse_attention_config\": {\"config_groups\": {\"g\": {\"algorithm\": "
             "\"skip_softmax\", \"threshold_scale_factor\": {\"formula\": \"a*exp(b*target_sparsity)\", "
             "\"prefill\": {\"a\": 10.0, \"b\": 2.0}, \"decode\": {\"a\": 3.0, \"b\": 1.0}}}}}}");

  /* threshold: factor = threshold * L at any L, no checkpoint needed. */
  CHECK(blasst_resolver_new("{\"threshold\": 0.01}", NULL, NULL, 0, &r) == BLASST_OK);
  CHECK(blasst_resolver_factor(r, "blocks.3.attn1", BLASST_PHASE_PREFILL, 8192, NAN, &f) == BLASST_OK);
  CHECK(fabsf(f - 81.92f) < 1e-3f);
  EXPECT_STATUS(blasst_resolver_factor(r, "x", 9, 10, NAN, &f), BLASST_ERROR_INVALID_ARGUMENT, "phase = 9");
  EXPECT_STATUS(blasst_resolver_factor(r, NULL, 0, 10, NAN, &f), BLASST_ERROR_INVALID_ARGUMENT, "layer_name is NULL");
  blasst_resolver_free(r);
  r = NULL;

  /* target_sparsity: each component's curve; "missing" fails to read and stays dense. */
  CHECK(blasst_resolver_new("{\"target_sparsity\": 0.5, \"disabled_until_timestep\": 0.9}", dir,
                            comps, 3, &r) == BLASST_OK);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.5.attn1", BLASST_PHASE_PREFILL, 4096, 0.5, &f) == BLASST_OK);
  CHECK(fabs(f - 2822.6209952221557 * exp(4.388250623520793 * 0.5)) < 1e-2);
  CHECK(blasst_resolver_factor(r, "transformer_2.blocks.5.attn1", BLASST_PHASE_PREFILL, 4096, 0.5, &f) == BLASST_OK);
  CHECK(fabs(f - 10.0 * exp(1.0)) < 1e-4);
  CHECK(blasst_resolver_factor(r, "transformer_2.blocks.5.attn1", BLASST_PHASE_DECODE, 4096, 0.5, &f) == BLASST_OK);
  CHECK(fabs(f - 3.0 * exp(0.5)) < 1e-4);
  CHECK(blasst_resolver_factor(r, "missing.blocks.5.attn1", BLASST_PHASE_PREFILL, 4096, 0.5, &f) == BLASST_OK);
  CHECK(f == 0.0f);
  /* ignore: relative name, full name, submodule of an ignored prefix, in any component. */
  CHECK(blasst_resolver_factor(r, "transformer.blocks.0.attn1", 0, 4096, 0.5, &f) == BLASST_OK && f == 0.0f);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.0.attn1.inner", 0, 4096, 0.5, &f) == BLASST_OK && f == 0.0f);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.1.attn2", 0, 4096, 0.5, &f) == BLASST_OK && f == 0.0f);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.0.attn2", 0, 4096, 0.5, &f) == BLASST_OK && f > 0.0f);
  /* gate: t > c dense, t == c and below active. */
  CHECK(blasst_resolver_factor(r, "transformer.blocks.5.attn1", 0, 4096, 0.9000001, &f) == BLASST_OK && f == 0.0f);
  CHECK(blasst_resolver_factor(r, "transformer.blocks.5.attn1", 0, 4096, 0.9, &f) == BLASST_OK && f > 0.0f);
  EXPECT_STATUS(blasst_resolver_factor(r, "transformer.blocks.5.attn1", 0, 4096, 999.0, &f),
                BLASST_ERROR_INVALID_ARGUMENT, "timestep = 999");

  /* describe: size query, too-small buffer, full text. */
  CHECK(blasst_resolver_describe(r, NULL, 0, &need) == BLASST_OK && need > 10);
  desc = (char *)malloc(need);
  CHECK(desc != NULL);
  EXPECT_STATUS(blasst_resolver_describe(r, desc, need - 1, NULL), BLASST_ERROR_INVALID_ARGUMENT, "too small");
  CHECK(blasst_resolver_describe(r, desc, need, NULL) == BLASST_OK);
  CHECK(strlen(desc) + 1 == need);
  CHECK(strstr(desc, "\"status\":\"failed\"") != NULL);
  CHECK(strstr(desc, "WanAttention") != NULL);
  free(desc);
  blasst_resolver_free(r);
  blasst_resolver_free(NULL);

  /* Errors: target_sparsity without calibration points to threshold; out stays untouched. */
  r = NULL;
  EXPECT_STATUS(blasst_resolver_new("{\"target_sparsity\": 0.5}", NULL, NULL, 0, &r), BLASST_ERROR_CONFIG, "threshold");
  CHECK(r == NULL);
  EXPECT_STATUS(blasst_resolver_new("{\"threshold\": 0.1, \"target_sparsity\": 0.5}", NULL, NULL, 0, &r),
                BLASST_ERROR_CONFIG, "mutually exclusive");
  EXPECT_STATUS(blasst_resolver_new("{\"thresh\": 0.1}", NULL, NULL, 0, &r), BLASST_ERROR_CONFIG, "unknown key \"thresh\"");
  EXPECT_STATUS(blasst_resolver_new(NULL, NULL, NULL, 0, &r), BLASST_ERROR_INVALID_ARGUMENT, "spec_json is NULL");
  EXPECT_STATUS(blasst_resolver_new("{}", NULL, NULL, 0, NULL), BLASST_ERROR_INVALID_ARGUMENT, "out is NULL");
  CHECK(r == NULL);
  printf("resolver checks passed (%s)\n", dir);
  return 0;
}
