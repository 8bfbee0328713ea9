/* The C API without a server (client/include/fedmf/fedmf_client.h): versions, config and state
 * validation, local ratings, registration bytes, save/restore, NULL handling. Pure C; linked
 * against the shared library, so every function used here is known to be exported. */
#include <math.h>
#include <string.h>

#include "capi_check.h"

static fedmf_participant* New(uint32_t id) {
  uint8_t config[48];
  const size_t n = capi_config(config, id, 30, 0, 0);
  fedmf_participant* p = NULL;
  CHECK(fedmf_participant_create(config, n, &p) == FEDMF_OK);
  return p;
}

static void Versions(void) {
  CHECK(fedmf_abi_version() == FEDMF_ABI_VERSION);
  CHECK(strcmp(fedmf_version(), "0.2.0") == 0);
  CHECK(fedmf_protocol_version() == 5);
}

static void CreateRefusesBadConfigs(void) {
  uint8_t config[48];
  fedmf_participant* p = (fedmf_participant*)&p; /* must be reset to NULL on failure */
  const uint8_t garbage[] = {0xff, 0xff, 0xff};
  CHECK(fedmf_participant_create(garbage, sizeof garbage, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(p == NULL);
  CHECK(fedmf_participant_create(config, capi_config(config, 0, 30, 0, 0), &p) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "participant_id") != NULL);
  CHECK(fedmf_participant_create(config, capi_config(config, 1, 0, 0, 0), &p) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "num_items") != NULL);
  CHECK(fedmf_participant_create(config, capi_config(config, 1, -4, 0, 0), &p) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  /* Chunks must be 128 bytes to 64 MiB. */
  CHECK(fedmf_participant_create(config, capi_config(config, 1, 30, 127, 0), &p) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "chunk_bytes 127") != NULL);
  CHECK(fedmf_participant_create(NULL, 5, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_create(config, capi_config(config, 1, 30, 0, 0), NULL) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_create(config, capi_config(config, 1, 30, 128, 0), &p) == FEDMF_OK);
  CHECK(fedmf_participant_id(p) == 1);
  fedmf_participant_destroy(p);
}

static void RatingsAreAddedReplacedAndRemoved(void) {
  fedmf_participant* p = New(3);
  CHECK(fedmf_participant_rating_count(p) == 0);
  CHECK(fedmf_participant_set_rating(p, 7, 4.0f) == FEDMF_OK);
  CHECK(fedmf_participant_set_rating(p, 2, 1.0f) == FEDMF_OK);
  CHECK(fedmf_participant_set_rating(p, 29, 5.0f) == FEDMF_OK);
  CHECK(fedmf_participant_set_rating(p, 7, 3.5f) == FEDMF_OK); /* replaces */
  CHECK(fedmf_participant_rating_count(p) == 3);
  CHECK(fedmf_participant_set_rating(p, 30, 1.0f) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_set_rating(p, -1, 1.0f) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_set_rating(p, 1, NAN) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_set_rating(p, 1, INFINITY) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_remove_rating(p, 5) == FEDMF_ERR_NOT_FOUND);
  CHECK(fedmf_participant_remove_rating(p, 2) == FEDMF_OK);
  CHECK(fedmf_participant_remove_rating(p, 2) == FEDMF_ERR_NOT_FOUND);
  CHECK(fedmf_participant_rating_count(p) == 2);
  CHECK(fedmf_participant_set_rating(NULL, 1, 1.0f) == FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_participant_destroy(p);
}

static void QueriesNeedAModel(void) {
  fedmf_participant* p = New(1);
  int32_t items[4];
  double scores[4];
  size_t count = 99, len = 99;
  double rating = 0;
  CHECK(fedmf_participant_has_model(p) == 0);
  CHECK(fedmf_participant_recommend(p, 4, items, scores, 4, &count) ==
        FEDMF_ERR_FAILED_PRECONDITION);
  CHECK(count == 0);
  CHECK(fedmf_participant_recommend(p, 4, NULL, NULL, 4, &count) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_predict(p, 0, &rating) == FEDMF_ERR_FAILED_PRECONDITION);
  CHECK(fedmf_participant_user_factor(p, NULL, 0, &len) == FEDMF_OK);
  CHECK(len == 0);
  CHECK(fedmf_participant_rounds_completed(p) == 0);
  CHECK(fedmf_participant_training_done(p) == 0);
  fedmf_participant_destroy(p);
}

/* RegisterRequest fields, hand-encoded: 1 protocol_version = 5 (08 05), 2 client_name "x"
 * (12 01 78), 3 enrollment_token "t" (1a 01 74), 4 signing_public_key (22 20 + 32 bytes),
 * 5 participant_ids [7] packed (2a 01 07): 45 bytes. */
static void RegisterRequestBytes(void) {
  fedmf_participant* p = New(7);
  uint8_t* out = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_register_request(p, "x", "t", &out, &len) == FEDMF_OK);
  CHECK(len == 47);
  if (len == 47) {
    const uint8_t head[] = {0x08, 0x05, 0x12, 0x01, 0x78, 0x1a, 0x01, 0x74, 0x22, 0x20};
    /* participant_ids [7], accepts_check_in true */
    const uint8_t tail[] = {0x2a, 0x01, 0x07, 0x30, 0x01};
    CHECK(memcmp(out, head, sizeof head) == 0);
    CHECK(memcmp(out + 42, tail, sizeof tail) == 0);
  }
  fedmf_free(out);
  /* Protobuf strings must be UTF-8: a lone continuation byte, a truncated 2-byte sequence, an
   * overlong '/' (c0 af) and a surrogate (ed a0 80) are refused; "é" (c3 a9) is fine. */
  const char* bad[] = {"\x80", "a\xc3", "\xc0\xaf", "\xed\xa0\x80"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    CHECK(fedmf_participant_register_request(p, "x", bad[i], &out, &len) ==
          FEDMF_ERR_INVALID_ARGUMENT);
    CHECK(fedmf_participant_register_request(p, bad[i], "t", &out, &len) ==
          FEDMF_ERR_INVALID_ARGUMENT);
  }
  CHECK(fedmf_participant_register_request(p, "\xc3\xa9", NULL, &out, &len) == FEDMF_OK);
  fedmf_free(out);
  CHECK(fedmf_participant_register_request(NULL, "x", "t", &out, &len) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_participant_destroy(p);
}

/* RegisterResponse {session_token "abc" (0a 03 61 62 63), training_done true (18 01)} gives the
 * session token "abc" for the stream's metadata. */
static void OpenStreamBytes(void) {
  fedmf_participant* p = New(2);
  const uint8_t response[] = {0x0a, 0x03, 'a', 'b', 'c', 0x18, 0x01};
  const uint8_t token[] = {'a', 'b', 'c'};
  uint8_t* out = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_open_stream(p, response, sizeof response, &out, &len) == FEDMF_OK);
  CHECK(len == sizeof token && memcmp(out, token, sizeof token) == 0);
  CHECK(fedmf_participant_training_done(p) == 1);
  fedmf_free(out);
  const uint8_t garbage[] = {0x0a, 0x09, 'a'}; /* a 9-byte field with 1 byte */
  CHECK(fedmf_participant_open_stream(p, garbage, sizeof garbage, &out, &len) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  /* The empty message: no session token, and training not done. */
  CHECK(fedmf_participant_open_stream(p, response, 0, &out, &len) == FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_participant_destroy(p);
}

/* A saved participant restores with the same ratings, key and progress: saving the restored
 * one gives the same bytes, and it registers with the same key. */
static void SaveAndRestoreRoundTrip(void) {
  fedmf_participant* p = New(5);
  CHECK(fedmf_participant_set_rating(p, 4, 2.0f) == FEDMF_OK);
  CHECK(fedmf_participant_set_rating(p, 11, 5.0f) == FEDMF_OK);
  uint8_t *state = NULL, *again = NULL, *reg_a = NULL, *reg_b = NULL;
  size_t state_len = 0, again_len = 0, reg_a_len = 0, reg_b_len = 0;
  CHECK(fedmf_participant_save(p, &state, &state_len) == FEDMF_OK);
  fedmf_participant* q = NULL;
  CHECK(fedmf_participant_restore(state, state_len, &q) == FEDMF_OK);
  CHECK(fedmf_participant_id(q) == 5);
  CHECK(fedmf_participant_rating_count(q) == 2);
  CHECK(fedmf_participant_remove_rating(q, 11) == FEDMF_OK);
  CHECK(fedmf_participant_set_rating(q, 11, 5.0f) == FEDMF_OK);
  CHECK(fedmf_participant_save(q, &again, &again_len) == FEDMF_OK);
  CHECK(again_len == state_len && memcmp(state, again, state_len) == 0);
  /* No model yet: none to save, and the state names none. */
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  uint8_t* model = NULL;
  size_t model_len = 0;
  CHECK(fedmf_participant_model_id(q, id) == FEDMF_ERR_FAILED_PRECONDITION);
  CHECK(fedmf_participant_save_model(q, &model, &model_len) == FEDMF_ERR_FAILED_PRECONDITION);
  CHECK(model == NULL);
  CHECK(fedmf_state_model_id(state, state_len, id) == FEDMF_ERR_NOT_FOUND);
  CHECK(fedmf_participant_register_request(p, "a", NULL, &reg_a, &reg_a_len) == FEDMF_OK);
  CHECK(fedmf_participant_register_request(q, "a", NULL, &reg_b, &reg_b_len) == FEDMF_OK);
  CHECK(reg_a_len == reg_b_len && memcmp(reg_a, reg_b, reg_a_len) == 0);
  fedmf_free(state);
  fedmf_free(again);
  fedmf_free(reg_a);
  fedmf_free(reg_b);
  fedmf_participant_destroy(p);
  fedmf_participant_destroy(q);
}

static void RestoreRefusesBadStates(void) {
  fedmf_participant* p = (fedmf_participant*)&p;
  const uint8_t garbage[] = {0x0a, 0xff};
  CHECK(fedmf_participant_restore(garbage, sizeof garbage, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(p == NULL);
  const uint8_t version5[] = {0x08, 0x05}; /* format_version 5 */
  CHECK(fedmf_participant_restore(version5, sizeof version5, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "format_version 5") != NULL);
  /* format_version 1, config {participant_id 1, num_items 30}, no signing key. */
  const uint8_t no_key[] = {0x08, 0x01, 0x12, 0x04, 0x08, 0x01, 0x10, 0x1e};
  CHECK(fedmf_participant_restore(no_key, sizeof no_key, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "signing key") != NULL);
  /* A valid state whose ratings are tampered: item 40 of 30. */
  fedmf_participant* q = New(1);
  CHECK(fedmf_participant_set_rating(q, 29, 1.0f) == FEDMF_OK);
  uint8_t* state = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_save(q, &state, &len) == FEDMF_OK);
  /* items = [29] is encoded packed as 22 01 1d: find and change 29 to 40. */
  for (size_t i = 0; i + 2 < len; ++i) {
    if (state[i] == 0x22 && state[i + 1] == 0x01 && state[i + 2] == 0x1d) state[i + 2] = 40;
  }
  CHECK(fedmf_participant_restore(state, len, &p) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "item 40") != NULL);
  fedmf_free(state);
  fedmf_participant_destroy(q);
}

static void HandleRefusesMalformedServerBytes(void) {
  fedmf_participant* p = New(1);
  fedmf_messages* replies = (fedmf_messages*)&replies;
  const uint8_t garbage[] = {0x12, 0x7f, 0x00};
  CHECK(fedmf_participant_handle(p, garbage, sizeof garbage, &replies) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(replies == NULL);
  /* An empty ServerMessage parses but carries nothing. */
  CHECK(fedmf_participant_handle(p, NULL, 0, &replies) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "no content") != NULL);
  /* A SecAgg message (field 2) for participant 1 with no round begun: 12 02 08 01. */
  const uint8_t idle[] = {0x12, 0x02, 0x08, 0x01};
  CHECK(fedmf_participant_handle(p, idle, sizeof idle, &replies) == FEDMF_ERR_FAILED_PRECONDITION);
  /* A RoundResult (field 3) {applied: true, rounds_completed: 1}: 1a 04 10 01 38 01 -> no
   * replies, one round completed. */
  const uint8_t result[] = {0x1a, 0x04, 0x10, 0x01, 0x38, 0x01};
  CHECK(fedmf_participant_handle(p, result, sizeof result, &replies) == FEDMF_OK);
  CHECK(fedmf_messages_count(replies) == 0);
  const uint8_t* data = NULL;
  size_t len = 0;
  CHECK(fedmf_messages_get(replies, 0, &data, &len) == FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_messages_free(replies);
  CHECK(fedmf_participant_rounds_completed(p) == 1);
  CHECK(fedmf_participant_handle(NULL, result, sizeof result, &replies) ==
        FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_participant_destroy(p);
}

/* Check-in: a CheckInLater (field 5) {retry_after_ms: 1500 (08 dc 0b)} has no reply; its delay
 * is taken once. */
static void ACheckInDelayIsTakenOnce(void) {
  fedmf_participant* p = New(1);
  CHECK(fedmf_participant_take_check_in_ms(p) == -1);
  CHECK(fedmf_participant_take_check_in_ms(NULL) == -1);
  const uint8_t later[] = {0x2a, 0x03, 0x08, 0xdc, 0x0b};
  fedmf_messages* replies = NULL;
  CHECK(fedmf_participant_handle(p, later, sizeof later, &replies) == FEDMF_OK);
  CHECK(fedmf_messages_count(replies) == 0);
  fedmf_messages_free(replies);
  CHECK(fedmf_participant_take_check_in_ms(p) == 1500);
  CHECK(fedmf_participant_take_check_in_ms(p) == -1);
  fedmf_participant_destroy(p);
}

static void NullIsHarmless(void) {
  fedmf_participant_destroy(NULL);
  fedmf_messages_free(NULL);
  fedmf_free(NULL);
  CHECK(fedmf_messages_count(NULL) == 0);
  CHECK(fedmf_participant_rating_count(NULL) == 0);
  CHECK(fedmf_participant_id(NULL) == 0);
  CHECK(fedmf_participant_has_model(NULL) == 0);
  uint8_t* out = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_save(NULL, &out, &len) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_save_model(NULL, &out, &len) == FEDMF_ERR_INVALID_ARGUMENT);
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  CHECK(fedmf_participant_model_id(NULL, id) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_state_model_id(NULL, 0, NULL) == FEDMF_ERR_INVALID_ARGUMENT);
  fedmf_participant* p = NULL;
  CHECK(fedmf_participant_restore_with_model(NULL, 0, NULL, 1, &p) == FEDMF_ERR_INVALID_ARGUMENT);
}

int main(void) {
  RUN_TEST(Versions);
  RUN_TEST(CreateRefusesBadConfigs);
  RUN_TEST(RatingsAreAddedReplacedAndRemoved);
  RUN_TEST(QueriesNeedAModel);
  RUN_TEST(RegisterRequestBytes);
  RUN_TEST(OpenStreamBytes);
  RUN_TEST(SaveAndRestoreRoundTrip);
  RUN_TEST(RestoreRefusesBadStates);
  RUN_TEST(HandleRefusesMalformedServerBytes);
  RUN_TEST(ACheckInDelayIsTakenOnce);
  RUN_TEST(NullIsHarmless);
  return capi_failures != 0;
}
