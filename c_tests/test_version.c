/* Version and ABI: the header's macros, the library's strings and numbers agree. */
#include "common.h"

int main(void) {
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", BLASST_VERSION_MAJOR, BLASST_VERSION_MINOR,
           BLASST_VERSION_PATCH);
  CHECK(strcmp(blasst_version(), want) == 0);
  CHECK(blasst_abi_version() == BLASST_ABI_VERSION);
  CHECK(strcmp(blasst_last_error(), "") == 0);
  printf("blasst %s, ABI %u\n", blasst_version(), blasst_abi_version());
  return 0;
}
