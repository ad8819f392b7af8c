/* A host log callback receives the library's warnings (the gate's once-per-resolver warning). */
#include "common.h"

static int warnings = 0;
static int other = 0;

static void on_log(uint32_t level, const char *message, void *user_data) {
  CHECK(user_data == (void *)&warnings);
  if (level == BLASST_LOG_WARN && strstr(message, "no timestep") != NULL) warnings++;
  else other++;
}

int main(void) {
  blasst_resolver *r = NULL;
  float f = 1.0f;
  int i;
  blasst_set_log_callback(on_log, &warnings);
  CHECK(blasst_resolver_new("{\"threshold\": 0.01, \"disabled_until_timestep\": 1.0}", NULL, NULL, 0, &r) == BLASST_OK);
  for (i = 0; i < 3; i++) {
    CHECK(blasst_resolver_factor(r, "blocks.0.attn1", BLASST_PHASE_PREFILL, 1024, NAN, &f) == BLASST_OK);
    CHECK(f == 0.0f);
  }
  CHECK(warnings == 1);
  /* A published timestep at or below the cutoff activates skipping. */
  CHECK(blasst_resolver_factor(r, "blocks.0.attn1", BLASST_PHASE_PREFILL, 1024, 1.0, &f) == BLASST_OK);
  CHECK(fabsf(f - 10.24f) < 1e-4f);
  blasst_resolver_free(r);
  blasst_set_log_callback(NULL, NULL);
  printf("log callback received %d warning(s), %d other message(s)\n", warnings, other);
  return 0;
}
