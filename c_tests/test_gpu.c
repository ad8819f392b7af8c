/* GPU smoke test: skips (ctest code 77) when no CUDA driver/NVRTC is present or when this build
 * has no GPU kernels; the GPU kernels are tested on the GPU machine by scripts/device-check.sh. */
#include "common.h"

int main(void) {
  blasst_attn_params p;
  void *buf = malloc(4096);
  blasst_status s;
  CHECK(buf != NULL);
  memset(buf, 0, 4096);
  test_params(&p, (float *)buf, (float *)buf, (float *)buf, (float *)buf, 1, 1, 1, 1, 1, 64);
  p.device = BLASST_DEVICE_CUDA;
  p.dtype = BLASST_DTYPE_BF16;
  s = blasst_attn_run(&p, NULL);
  free(buf);
  if (s == BLASST_ERROR_NO_DEVICE || s == BLASST_ERROR_UNSUPPORTED) {
    printf("skipped: %s\n", blasst_last_error());
    return SKIP_CODE;
  }
  /* Host memory passed as device memory must be rejected, never dereferenced. */
  CHECK(s == BLASST_ERROR_INVALID_ARGUMENT);
  printf("host pointer rejected: %s\n", blasst_last_error());
  return 0;
}
