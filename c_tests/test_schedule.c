/* Flow-shift schedules and dense-step counts, against the formula computed here. */
#include "common.h"

int main(void) {
  double t[51];
  const double shifts[3] = {1.0, 3.0, 5.0};
  const double cutoffs[4] = {0.0, 0.5, 0.9, 1.0};
  int si, ci, kk;
  for (si = 0; si < 3; si++) {
    double s = shifts[si];
    CHECK(blasst_schedule_flow_shift(s, 50, t) == BLASST_OK);
    for (kk = 0; kk <= 50; kk++) {
      double u = 1.0 - kk / 50.0;
      CHECK(fabs(t[kk] - s * u / (1.0 + (s - 1.0) * u)) < 1e-12);
    }
    for (ci = 0; ci < 4; ci++) {
      uint32_t dense = 99;
      uint32_t want = 0;
      CHECK(blasst_schedule_dense_steps(t, 50, cutoffs[ci], &dense) == BLASST_OK);
      if (cutoffs[ci] > 0.0)
        for (kk = 0; kk < 50; kk++) want += t[kk] > cutoffs[ci];
      CHECK(dense == want);
    }
  }
  EXPECT_STATUS(blasst_schedule_flow_shift(-1.0, 50, t), BLASST_ERROR_INVALID_ARGUMENT, "shift = -1");
  EXPECT_STATUS(blasst_schedule_flow_shift(3.0, 0, t), BLASST_ERROR_INVALID_ARGUMENT, "num_steps = 0");
  EXPECT_STATUS(blasst_schedule_dense_steps(t, 50, 1.5, NULL), BLASST_ERROR_INVALID_ARGUMENT, "dense_steps is NULL");
  {
    uint32_t d;
    EXPECT_STATUS(blasst_schedule_dense_steps(t, 50, 1.5, &d), BLASST_ERROR_INVALID_ARGUMENT, "cutoff = 1.5");
    EXPECT_STATUS(blasst_schedule_dense_steps(NULL, 3, 0.5, &d), BLASST_ERROR_INVALID_ARGUMENT, "t is NULL");
  }
  printf("schedules agree\n");
  return 0;
}
