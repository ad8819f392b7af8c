#include <blasst.h>
#include <stdio.h>

int main(void) {
  printf("blasst %s (ABI %u)\n", blasst_version(), blasst_abi_version());
  return blasst_abi_version() == BLASST_ABI_VERSION ? 0 : 1;
}
