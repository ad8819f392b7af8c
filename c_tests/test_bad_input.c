/* Bad input: every invalid field gets its status and a message naming the field and value,
 * and nothing is written. No input crashes the process. */
#include "common.h"

#define B 2
#define LQ 5
#define LK 9
#define HQ 4
#define HKV 2
#define D 64
#define POISON 1234.5f

static float q[B * LQ * HQ * D], k[B * LK * HKV * D], v[B * LK * HKV * D], o[B * LQ * HQ * D];

typedef void (*mutate_fn)(blasst_attn_params *p);
typedef struct {
  const char *name;
  mutate_fn mutate;
  blasst_status want;
  const char *needle;
} bad_case;

static int32_t cu_bad[3] = {0, 4, 2};
static int32_t table[B * 2] = {0, 1, 2, 3};
static int32_t used_big[B] = {9, 40};
static blasst_attn_plan_info bad_plan;

static void m_size0(blasst_attn_params *p) { p->struct_size = 0; }
static void m_size10000(blasst_attn_params *p) { p->struct_size = 10000; }
static void m_device(blasst_attn_params *p) { p->device = 7; }
static void m_dtype(blasst_attn_params *p) { p->dtype = 99; }
static void m_batch0(blasst_attn_params *p) { p->batch_size = 0; }
static void m_batch_absurd(blasst_attn_params *p) { p->batch_size = 4000000000u; }
static void m_heads(blasst_attn_params *p) { p->num_kv_heads = 3; }
static void m_kvheads0(blasst_attn_params *p) { p->num_kv_heads = 0; }
static void m_headdim(blasst_attn_params *p) { p->head_dim = 1000; }
/* The GPU runs multiples of 8 up to 256 (96 on the d = 128 kernel, zero-padded). */
static void m_gpu_headdim(blasst_attn_params *p) { p->device = BLASST_DEVICE_CUDA; p->dtype = BLASST_DTYPE_BF16; p->head_dim = 100; }
static void m_gpu_headdim_big(blasst_attn_params *p) { p->device = BLASST_DEVICE_CUDA; p->dtype = BLASST_DTYPE_BF16; p->head_dim = 264; }
static void m_lq0(blasst_attn_params *p) { p->max_seqlen_q = 0; }
static void m_lk0(blasst_attn_params *p) { p->max_seqlen_kv = 0; }
static void m_causal(blasst_attn_params *p) { p->causal = 2; }
static void m_scale_nan(blasst_attn_params *p) { p->softmax_scale = NAN; }
static void m_scale_neg(blasst_attn_params *p) { p->softmax_scale = -1.0f; }
static void m_factor_nan(blasst_attn_params *p) { p->threshold_scale_factor = NAN; }
static void m_factor_neg(blasst_attn_params *p) { p->threshold_scale_factor = -0.5f; }
static void m_factor_inf(blasst_attn_params *p) { p->threshold_scale_factor = INFINITY; }
static void m_q_null(blasst_attn_params *p) { p->q = NULL; }
static void m_o_null(blasst_attn_params *p) { p->o = NULL; }
static void m_misaligned(blasst_attn_params *p) { p->k = (const char *)p->k + 1; }
static void m_stride_neg(blasst_attn_params *p) { p->k_row_stride = -64; }
static void m_o_overlap(blasst_attn_params *p) { p->o_head_stride = 1; }
static void m_cu_monotone(blasst_attn_params *p) { p->cu_seqlens_q = cu_bad; }
static void m_paged_half(blasst_attn_params *p) { p->page_size = 16; }
static void m_paged_nopage(blasst_attn_params *p) { p->block_table = table; p->block_table_stride = 2; }
static void m_paged_cu(blasst_attn_params *p) { p->block_table = table; p->block_table_stride = 2; p->page_size = 8; p->cu_seqlens_kv = cu_bad; }
static void m_seqused(blasst_attn_params *p) { p->seqused_kv = used_big; }
static void m_workspace(blasst_attn_params *p) { p->workspace_size = 64; }
static void m_plan(blasst_attn_params *p) { bad_plan = *p->plan; bad_plan.block_n = 0; p->plan = &bad_plan; }
static void m_gpu_pagesize(blasst_attn_params *p) { p->device = BLASST_DEVICE_CUDA; p->dtype = BLASST_DTYPE_BF16; p->block_table = table; p->block_table_stride = 2; p->page_size = 24; }

int main(void) {
  static const bad_case cases[] = {
      {"struct_size 0", m_size0, BLASST_ERROR_INVALID_ARGUMENT, "struct_size = 0"},
      {"struct_size 10000", m_size10000, BLASST_ERROR_INVALID_ARGUMENT, "struct_size = 10000"},
      {"device", m_device, BLASST_ERROR_INVALID_ARGUMENT, "device = 7"},
      {"dtype", m_dtype, BLASST_ERROR_INVALID_ARGUMENT, "dtype = 99"},
      {"batch 0", m_batch0, BLASST_ERROR_INVALID_ARGUMENT, "batch_size = 0"},
      {"batch absurd", m_batch_absurd, BLASST_ERROR_INVALID_ARGUMENT, "batch_size = 4000000000"},
      {"heads", m_heads, BLASST_ERROR_INVALID_ARGUMENT, "num_q_heads = 4 is not a multiple of num_kv_heads = 3"},
      {"kv heads 0", m_kvheads0, BLASST_ERROR_INVALID_ARGUMENT, "num_kv_heads = 0"},
      {"head_dim", m_headdim, BLASST_ERROR_INVALID_ARGUMENT, "head_dim = 1000"},
      {"gpu head_dim", m_gpu_headdim, BLASST_ERROR_UNSUPPORTED, "head_dim = 100 is not supported on the GPU"},
      {"gpu head_dim > 256", m_gpu_headdim_big, BLASST_ERROR_UNSUPPORTED, "head_dim = 264 is not supported on the GPU"},
      {"lq 0", m_lq0, BLASST_ERROR_INVALID_ARGUMENT, "max_seqlen_q = 0"},
      {"lk 0", m_lk0, BLASST_ERROR_INVALID_ARGUMENT, "max_seqlen_kv = 0"},
      {"causal", m_causal, BLASST_ERROR_INVALID_ARGUMENT, "causal = 2"},
      {"scale nan", m_scale_nan, BLASST_ERROR_INVALID_ARGUMENT, "softmax_scale = NaN"},
      {"scale neg", m_scale_neg, BLASST_ERROR_INVALID_ARGUMENT, "softmax_scale = -1"},
      {"factor nan", m_factor_nan, BLASST_ERROR_INVALID_ARGUMENT, "threshold_scale_factor = NaN"},
      {"factor neg", m_factor_neg, BLASST_ERROR_INVALID_ARGUMENT, "threshold_scale_factor = -0.5"},
      {"factor inf", m_factor_inf, BLASST_ERROR_INVALID_ARGUMENT, "threshold_scale_factor = inf"},
      {"q null", m_q_null, BLASST_ERROR_INVALID_ARGUMENT, "q is NULL"},
      {"o null", m_o_null, BLASST_ERROR_INVALID_ARGUMENT, "o is NULL"},
      {"misaligned", m_misaligned, BLASST_ERROR_INVALID_ARGUMENT, "k = 0x"},
      {"negative stride", m_stride_neg, BLASST_ERROR_INVALID_ARGUMENT, "k_row_stride = -64"},
      {"overlapping output", m_o_overlap, BLASST_ERROR_INVALID_ARGUMENT, "o_head_stride = 1"},
      {"cu_seqlens", m_cu_monotone, BLASST_ERROR_INVALID_ARGUMENT, "cu_seqlens_q is not monotone"},
      {"paged half set", m_paged_half, BLASST_ERROR_INVALID_ARGUMENT, "paged fields half set"},
      {"paged no page size", m_paged_nopage, BLASST_ERROR_INVALID_ARGUMENT, "page_size = 0"},
      {"paged with cu_seqlens_kv", m_paged_cu, BLASST_ERROR_INVALID_ARGUMENT, "cu_seqlens_kv"},
      {"seqused_kv", m_seqused, BLASST_ERROR_INVALID_ARGUMENT, "seqused_kv[1] = 40"},
      {"workspace", m_workspace, BLASST_ERROR_INVALID_ARGUMENT, "workspace_size = 64"},
      {"plan", m_plan, BLASST_ERROR_INVALID_ARGUMENT, "plan->block_n = 0"},
      {"gpu page size", m_gpu_pagesize, BLASST_ERROR_UNSUPPORTED, "page_size = 24"},
  };
  size_t i, j;
  unsigned long long st = 7;
  blasst_attn_plan_info plan;
  blasst_attn_params p;
  for (i = 0; i < sizeof q / sizeof q[0]; i++) q[i] = test_rand(&st);
  for (i = 0; i < sizeof k / sizeof k[0]; i++) k[i] = test_rand(&st);
  for (i = 0; i < sizeof v / sizeof v[0]; i++) v[i] = test_rand(&st);

  test_params(&p, q, k, v, o, B, LQ, LK, HQ, HKV, D);
  CHECK(blasst_attn_plan(&p, &plan) == BLASST_OK);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    blasst_attn_params bad;
    test_params(&bad, q, k, v, o, B, LQ, LK, HQ, HKV, D);
    bad.plan = &plan;
    cases[i].mutate(&bad);
    for (j = 0; j < sizeof o / sizeof o[0]; j++) o[j] = POISON;
    {
      blasst_status s = blasst_attn_run(&bad, NULL);
      if (s != cases[i].want || strstr(blasst_last_error(), cases[i].needle) == NULL) {
        fprintf(stderr, "case \"%s\": status %d (want %d), message \"%s\" (want \"%s\")\n",
                cases[i].name, (int)s, (int)cases[i].want, blasst_last_error(), cases[i].needle);
        return 1;
      }
    }
    for (j = 0; j < sizeof o / sizeof o[0]; j++) CHECK(o[j] == POISON);
  }
  /* The valid call still works afterwards and writes every element. */
  CHECK(blasst_attn_run(&p, NULL) == BLASST_OK);
  for (j = 0; j < sizeof o / sizeof o[0]; j++) CHECK(o[j] != POISON && isfinite(o[j]));
  /* Other entry points with NULLs. */
  EXPECT_STATUS(blasst_attn_plan(&p, NULL), BLASST_ERROR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_STATUS(blasst_attn_workspace_size(NULL, NULL), BLASST_ERROR_INVALID_ARGUMENT, "is NULL");
  blasst_attn_params_init(NULL);
  printf("%u bad-input cases rejected\n", (unsigned)(sizeof cases / sizeof cases[0]));
  return 0;
}
