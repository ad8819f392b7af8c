/* Every status code is reachable through the C ABI, each with its message. */
#include "common.h"

int main(void) {
  float *buf = (float *)malloc(sizeof(float) * 4 * 2 * 64); /* malloc: 16-byte aligned */
  blasst_attn_params p;
  blasst_attn_plan_info plan;
  blasst_resolver *r = NULL;
  const char *comps[1] = {"transformer"};

  CHECK(buf != NULL);
  memset(buf, 0, sizeof(float) * 4 * 2 * 64);
  test_params(&p, buf, buf, buf, buf, 1, 4, 4, 2, 2, 64);
  CHECK(blasst_attn_plan(&p, &plan) == BLASST_OK);
  CHECK(plan.struct_size == sizeof(blasst_attn_plan_info));

  EXPECT_STATUS(blasst_attn_run(NULL, NULL), BLASST_ERROR_INVALID_ARGUMENT, "params is NULL");

  p.device = BLASST_DEVICE_CUDA;
  EXPECT_STATUS(blasst_attn_run(&p, NULL), BLASST_ERROR_UNSUPPORTED, "dtype = 2 (F32) is CPU only");

  EXPECT_STATUS(blasst_resolver_new("{\"threshold\": 0.1", NULL, NULL, 0, &r),
                BLASST_ERROR_CONFIG, "malformed JSON");
  CHECK(r == NULL);

  EXPECT_STATUS(blasst_resolver_new("{}", "/nonexistent/blasst-checkpoint", comps, 1, &r),
                BLASST_ERROR_IO, "/nonexistent/blasst-checkpoint/transformer/config.json");
  CHECK(r == NULL);

  {
    blasst_status s;
    p.dtype = BLASST_DTYPE_BF16;
    s = blasst_attn_run(&p, NULL);
    if (s == BLASST_ERROR_NO_DEVICE) {
      CHECK(strstr(blasst_last_error(), "libcuda") != NULL || strstr(blasst_last_error(), "NVRTC") != NULL);
    } else {
      printf("a CUDA driver is present here (status %d): NO_DEVICE not reachable\n", (int)s);
    }
  }

  EXPECT_STATUS(blasst_debug_trigger_panic(), BLASST_ERROR_INTERNAL, "caught panic");
  /* BLASST_ERROR_CUDA needs a GPU whose call fails; the GPU tests cover it. */
  free(buf);
  return 0;
}
