/* The smallest app of the installed library, built with pkg-config (install_test.sh): prints
 * the library's version and ABI, and round-trips a participant through its saved state. */
#include <stdio.h>

#include "fedmf/fedmf_client.h"

int main(void) {
  const unsigned char config[] = {0x08, 0x07, 0x10, 0x3c}; /* participant 7, 60 items */
  fedmf_participant *p = NULL, *q = NULL;
  uint8_t* state = NULL;
  size_t len = 0;
  if (fedmf_abi_version() != FEDMF_ABI_VERSION ||
      fedmf_participant_create(config, sizeof config, &p) != FEDMF_OK ||
      fedmf_participant_set_rating(p, 3, 4.0f) != FEDMF_OK ||
      fedmf_participant_save(p, &state, &len) != FEDMF_OK ||
      fedmf_participant_restore(state, len, &q) != FEDMF_OK || fedmf_participant_id(q) != 7 ||
      fedmf_participant_rating_count(q) != 1) {
    fprintf(stderr, "consumer: %s\n", fedmf_last_error());
    return 1;
  }
  printf("fedmf_version=%s abi=%u state_bytes=%zu\n", fedmf_version(), fedmf_abi_version(), len);
  fedmf_free(state);
  fedmf_participant_destroy(p);
  fedmf_participant_destroy(q);
  return 0;
}
