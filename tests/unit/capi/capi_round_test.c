/* Whole training rounds through the C API against an in-process coordinator side
 * (test_server.h: a real SecAgg ServerSession and the DPMF-RP updater): ten participants, ids
 * 1..10, each a fedmf_participant fed the serialized server messages and answering with the
 * serialized replies, as an app would over its own gRPC stream. Pure C. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capi_check.h"
#include "test_server.h"

#define COHORT 10
#define ITEMS 30

static fedmf_participant* users[COHORT]; /* participant id = index + 1 */
static int refused[COHORT];              /* FEDMF_ERR_FAILED_PRECONDITION answers per user */
static int incompatible[COHORT];         /* FEDMF_ERR_INCOMPATIBLE_MODEL answers per user */
static char incompatible_error[512];     /* the last one's fedmf_last_error() */
/* When set, Pump saves, destroys and restores each participant after every message it handles
 * and before its replies go out, as an app killed right after its write-ahead save would. */
static int restart_after_handle = 0;
/* What such an app stores per user: the model blob (saved when its id changed) and its id. */
static uint8_t* stored_model[COHORT];
static size_t stored_model_len[COHORT];
static uint8_t stored_model_id[COHORT][FEDMF_MODEL_ID_BYTES];
static int model_saves[COHORT];  /* model blobs stored per user */
static size_t largest_state = 0; /* the largest state saved */
/* When set, Pump saves each participant after every message it handles (the write-ahead save,
 * without a restart) and records the largest state of the stage `pump_stage`. */
static int measure_after_handle = 0;
#define MEASURED_STAGES 8
static int pump_stage = 0;
static size_t largest_in_stage[MEASURED_STAGES];

/* Participant i rates 8 items (i * 7 + 4 k) mod 30, k = 0..7 (distinct: 4 k mod 30 is), with
 * rating 1 + (i + k) mod 5, in a catalogue of `num_items` >= 30. Noise keyed from seed 11. */
static void CreateUsersWith(int32_t num_items) {
  for (uint32_t i = 0; i < COHORT; ++i) {
    uint8_t config[48];
    const size_t n = capi_config(config, i + 1, num_items, 0, 11);
    users[i] = NULL;
    CHECK(fedmf_participant_create(config, n, &users[i]) == FEDMF_OK);
    for (int k = 0; k < 8; ++k) {
      CHECK(fedmf_participant_set_rating(users[i], (int32_t)((i * 7 + 4 * k) % ITEMS),
                                         (float)(1 + (i + k) % 5)) == FEDMF_OK);
    }
    refused[i] = 0;
    incompatible[i] = 0;
    stored_model[i] = NULL;
    stored_model_len[i] = 0;
    model_saves[i] = 0;
  }
  largest_state = 0;
}

/* The model of the tests' server (mechanism none: only the rounding). */
static void CreateUsers(void) { CreateUsersWith(ITEMS); }

static void DestroyUsers(void) {
  for (int i = 0; i < COHORT; ++i) {
    fedmf_participant_destroy(users[i]);
    fedmf_free(stored_model[i]);
  }
}

/* Replaces users[i] by a participant restored from `state` (which it saved) and the stored model
 * blob the state names, as docs/mobile.md's app does at start. */
static void RestoreStored(int i, const uint8_t* state, size_t len) {
  uint8_t named[FEDMF_MODEL_ID_BYTES];
  const int has_model = fedmf_state_model_id(state, len, named) == FEDMF_OK;
  CHECK(!has_model || memcmp(named, stored_model_id[i], sizeof named) == 0);
  CHECK(fedmf_participant_restore_with_model(state, len, has_model ? stored_model[i] : NULL,
                                             has_model ? stored_model_len[i] : 0,
                                             &users[i]) == FEDMF_OK);
}

/* Replaces users[i] by a participant restored from what it saved, as docs/mobile.md's app does:
 * the model blob when its id changed, then the state; at start, the state and the blob it names.
 * Every state the library returns must survive a second crash before the next message: the
 * restored participant saves at once, the bytes must be the first state's, and the participant
 * that goes on is restored from that re-saved state. */
static void SaveDestroyRestore(int i) {
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  if (fedmf_participant_model_id(users[i], id) == FEDMF_OK &&
      (stored_model[i] == NULL || memcmp(id, stored_model_id[i], sizeof id) != 0)) {
    fedmf_free(stored_model[i]);
    stored_model[i] = NULL;
    CHECK(fedmf_participant_save_model(users[i], &stored_model[i], &stored_model_len[i]) ==
          FEDMF_OK);
    memcpy(stored_model_id[i], id, sizeof id);
    ++model_saves[i];
  }
  uint8_t* state = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_save(users[i], &state, &len) == FEDMF_OK);
  if (len > largest_state) largest_state = len;
  fedmf_participant_destroy(users[i]);
  users[i] = NULL;
  RestoreStored(i, state, len);
  uint8_t* again = NULL;
  size_t again_len = 0;
  CHECK(fedmf_participant_save(users[i], &again, &again_len) == FEDMF_OK);
  CHECK(again != NULL && again_len == len && memcmp(again, state, len) == 0);
  fedmf_participant_destroy(users[i]);
  users[i] = NULL;
  RestoreStored(i, again, again_len);
  fedmf_free(again);
  fedmf_free(state);
}

/* Delivers every queued server message to its participant and every reply to the server. */
static void Pump(capi_server* server) {
  uint32_t to = 0;
  const uint8_t* data = NULL;
  size_t len = 0;
  while (capi_server_next(server, &to, &data, &len)) {
    CHECK(to >= 1 && to <= COHORT);
    if (to < 1 || to > COHORT) continue;
    fedmf_messages* replies = NULL;
    const fedmf_status s = fedmf_participant_handle(users[to - 1], data, len, &replies);
    if (s == FEDMF_ERR_FAILED_PRECONDITION) {
      ++refused[to - 1];
      continue;
    }
    if (s == FEDMF_ERR_INCOMPATIBLE_MODEL) {
      ++incompatible[to - 1];
      snprintf(incompatible_error, sizeof incompatible_error, "%s", fedmf_last_error());
      continue;
    }
    CHECK(s == FEDMF_OK);
    if (restart_after_handle) SaveDestroyRestore((int)to - 1); /* write-ahead, then a restart */
    if (measure_after_handle) {
      uint8_t* state = NULL;
      size_t state_len = 0;
      CHECK(fedmf_participant_save(users[to - 1], &state, &state_len) == FEDMF_OK);
      if (state_len > largest_in_stage[pump_stage]) largest_in_stage[pump_stage] = state_len;
      fedmf_free(state);
    }
    for (size_t r = 0; r < fedmf_messages_count(replies); ++r) {
      const uint8_t* reply = NULL;
      size_t reply_len = 0;
      CHECK(fedmf_messages_get(replies, r, &reply, &reply_len) == FEDMF_OK);
      CHECK(capi_server_deliver(server, reply, reply_len) == 0);
    }
    fedmf_messages_free(replies);
  }
}

/* Closes stages until the round ends; returns its capi_round_state. */
static int FinishRound(capi_server* server) {
  int state = CAPI_ROUND_RUNNING;
  for (int stages = 0; state == CAPI_ROUND_RUNNING && stages < 10; ++stages) {
    Pump(server);
    state = capi_server_close_stage(server);
  }
  Pump(server); /* the RoundResult */
  return state;
}

static capi_server* NewServer(int signatures) {
  uint32_t ids[COHORT];
  for (uint32_t i = 0; i < COHORT; ++i) ids[i] = i + 1;
  capi_server* server = capi_server_create(ids, COHORT, 6, signatures);
  CHECK(server != NULL);
  return server;
}

/* Every user registers its signing key through the RegisterRequest bytes the library makes. */
static void RegisterUsers(capi_server* server) {
  for (int i = 0; i < COHORT; ++i) {
    uint8_t* request = NULL;
    size_t len = 0;
    CHECK(fedmf_participant_register_request(users[i], "capi-test", NULL, &request, &len) ==
          FEDMF_OK);
    CHECK(capi_server_register(server, request, len) == 0);
    fedmf_free(request);
  }
}

/* After a round every user has the model, a rank-4 user factor, and a top-5 list of items they
 * did not rate, best first. */
static void CheckModelQueries(fedmf_participant* p) {
  CHECK(fedmf_participant_has_model(p) == 1);
  CHECK(fedmf_participant_model_num_items(p) == ITEMS);
  double factor[8];
  size_t len = 0;
  CHECK(fedmf_participant_user_factor(p, factor, 8, &len) == FEDMF_OK);
  CHECK(len == 4);
  int32_t items[5];
  double scores[5];
  size_t count = 0;
  CHECK(fedmf_participant_recommend(p, 5, items, scores, 5, &count) == FEDMF_OK);
  CHECK(count == 5);
  for (size_t k = 0; k < count; ++k) {
    CHECK(items[k] >= 0 && items[k] < ITEMS);
    CHECK(fedmf_participant_remove_rating(p, items[k]) == FEDMF_ERR_NOT_FOUND); /* unrated */
    if (k > 0) CHECK(scores[k] <= scores[k - 1]);
  }
  double rating = NAN;
  for (int32_t item = 0; item < ITEMS; ++item) { /* on the model's 1-5 scale */
    CHECK(fedmf_participant_predict(p, item, &rating) == FEDMF_OK);
    CHECK(rating >= 1 && rating <= 5);
  }
  CHECK(fedmf_participant_predict(p, ITEMS, &rating) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(fedmf_participant_recommend(p, 0, items, scores, 5, &count) == FEDMF_ERR_INVALID_ARGUMENT);
}

static void AWholeRoundUpdatesTheModel(void) {
  CreateUsers();
  capi_server* server = NewServer(0);
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT);
  CHECK(capi_server_rounds(server) == 1);
  for (int i = 0; i < COHORT; ++i) {
    CHECK(refused[i] == 0);
    CHECK(fedmf_participant_rounds_completed(users[i]) == 1);
    CheckModelQueries(users[i]);
  }
  capi_server_destroy(server);
  DestroyUsers();
}

/* Signed advertisements and the consistency check: every user registers its key through the
 * RegisterRequest bytes the library makes, and the round completes. */
static void ASignedRoundWithTheConsistencyCheck(void) {
  CreateUsers();
  capi_server* server = NewServer(1);
  RegisterUsers(server);
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT);
  capi_server_destroy(server);
  DestroyUsers();
}

/* A version-1 state (no round in progress, as libraries before version 2 saved it): participant
 * 3, saved after its AdvertiseKeys, is restored without its session (and, stripped of its model
 * id, without a model), refuses the rest of that round's SecAgg messages, so the round completes
 * with 9 contributors; it takes part in the next round, whose task brings the model, which has
 * all 10. A version-1 blob with a round, or with a model id, is refused. */
static void AVersion1StateDropsOutOfTheRoundInProgress(void) {
  CreateUsers();
  capi_server* server = NewServer(0);
  CHECK(capi_server_start_round(server) == 0);
  Pump(server); /* tasks out, AdvertiseKeys in */
  uint8_t* state = NULL;
  size_t len = 0;
  CHECK(fedmf_participant_save(users[2], &state, &len) == FEDMF_OK);
  CHECK(len > 2 && state[0] == 0x08 && state[1] == 0x04); /* format_version 4 comes first */
  state[1] = 0x01;
  len = capi_strip_field(state, len, 12); /* ParticipantState.local_state (version 3) */
  CHECK(len > 0);
  fedmf_participant* refused_state = NULL;
  CHECK(fedmf_participant_restore(state, len, &refused_state) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "model_id needs format_version 4") != NULL);
  len = capi_strip_field(state, len, 13); /* ParticipantState.model_id (version 4) */
  CHECK(len > 0);
  CHECK(fedmf_participant_restore(state, len, &refused_state) == FEDMF_ERR_INVALID_ARGUMENT);
  CHECK(strstr(fedmf_last_error(), "format_version 2") != NULL);
  len = capi_strip_field(state, len, 11); /* ParticipantState.round */
  CHECK(len > 0);
  fedmf_participant_destroy(users[2]);
  users[2] = NULL;
  CHECK(fedmf_participant_restore(state, len, &users[2]) == FEDMF_OK);
  fedmf_free(state);
  CHECK(fedmf_participant_has_model(users[2]) == 0);
  CHECK(capi_server_close_stage(server) == CAPI_ROUND_RUNNING);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT - 1);
  CHECK(refused[2] == 1); /* its ShareKeys request; the server asks it nothing after that */
  for (int i = 0; i < COHORT; ++i) {
    if (i != 2) CHECK(refused[i] == 0);
  }
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT);
  CHECK(capi_server_rounds(server) == 2);
  CHECK(fedmf_participant_rounds_completed(users[2]) == 2); /* both results reached it */
  CHECK(fedmf_participant_has_model(users[2]) == 1);
  capi_server_destroy(server);
  DestroyUsers();
}

#define SUM_CAPACITY 4096
#define EVERY_STAGE 100

/* One round with fresh users (signed with the consistency check if `signatures`); during the
 * Pump of stage `restart_stage` (0: the tasks, then ShareKeys, MaskedInput, [ConsistencyCheck,]
 * Unmasking; EVERY_STAGE: all of them; -1: never) every user is saved and restored
 * (SaveDestroyRestore) after each message it handles. The round must apply with all 10; the sum
 * goes to `sum` and its length is returned. */
static size_t RoundWithRestarts(int signatures, int restart_stage, uint64_t* sum) {
  CreateUsers();
  capi_server* server = NewServer(signatures);
  if (signatures) RegisterUsers(server);
  CHECK(capi_server_start_round(server) == 0);
  int state = CAPI_ROUND_RUNNING;
  for (int stage = 0; state == CAPI_ROUND_RUNNING && stage < 10; ++stage) {
    restart_after_handle = stage == restart_stage || restart_stage == EVERY_STAGE;
    Pump(server);
    restart_after_handle = 0;
    state = capi_server_close_stage(server);
  }
  restart_after_handle = restart_stage >= 0; /* and once more for the RoundResult */
  Pump(server);
  restart_after_handle = 0;
  CHECK(state == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT);
  for (int i = 0; i < COHORT; ++i) {
    CHECK(refused[i] == 0);
    CHECK(fedmf_participant_rounds_completed(users[i]) == 1);
    CHECK(model_saves[i] == (restart_stage >= 0)); /* the task's model, once */
  }
  const size_t n = capi_server_last_sum(server, sum, SUM_CAPACITY);
  CHECK(n > 0 && n <= SUM_CAPACITY);
  capi_server_destroy(server);
  DestroyUsers();
  return n;
}

/* Users saved and destroyed mid-round, at each stage and then at every stage of one round, and
 * restored from the bytes (twice, re-saving in between) continue the round they were in: it
 * applies with all 10 and exactly the sum of a round without restarts (the contributions are
 * deterministic: seeded noise, mechanism none). */
static void RestoredParticipantsContinueTheRound(void) {
  static uint64_t reference[SUM_CAPACITY], sum[SUM_CAPACITY];
  for (int signatures = 0; signatures <= 1; ++signatures) {
    const size_t n = RoundWithRestarts(signatures, -1, reference);
    const int stages = signatures ? 5 : 4;
    for (int stage = 0; stage <= stages; ++stage) {
      const int restart_stage = stage < stages ? stage : EVERY_STAGE;
      const int before = capi_failures;
      memset(sum, 0, sizeof sum);
      const size_t m = RoundWithRestarts(signatures, restart_stage, sum);
      CHECK(m == n && memcmp(sum, reference, n * sizeof(uint64_t)) == 0);
      if (capi_failures != before) {
        fprintf(stderr, "  (signatures %d, restarts in stage %d)\n", signatures, restart_stage);
      }
    }
  }
}

/* The model survives a restart through its blob: a restored participant recommends exactly what
 * it did, and the blob is stored once while the model does not change. */
static void ARestoredParticipantKeepsItsModel(void) {
  CreateUsers();
  capi_server* server = NewServer(0);
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  int32_t before[6], after[6];
  double before_scores[6], after_scores[6], f_before[4], f_after[4];
  size_t n_before = 0, n_after = 0, len = 0;
  CHECK(fedmf_participant_recommend(users[0], 6, before, before_scores, 6, &n_before) == FEDMF_OK);
  CHECK(fedmf_participant_user_factor(users[0], f_before, 4, &len) == FEDMF_OK);
  SaveDestroyRestore(0);
  CHECK(model_saves[0] == 1);
  CHECK(fedmf_participant_recommend(users[0], 6, after, after_scores, 6, &n_after) == FEDMF_OK);
  CHECK(n_before == 6 && n_after == 6);
  CHECK(memcmp(before, after, sizeof before) == 0);
  CHECK(memcmp(before_scores, after_scores, sizeof before_scores) == 0);
  CHECK(fedmf_participant_user_factor(users[0], f_after, 4, &len) == FEDMF_OK);
  CHECK(len == 4 && memcmp(f_before, f_after, sizeof f_before) == 0);
  CHECK(fedmf_participant_rounds_completed(users[0]) == 1);
  SaveDestroyRestore(0); /* the same model: no new blob */
  CHECK(model_saves[0] == 1);
  CHECK(fedmf_participant_has_model(users[0]) == 1);
  capi_server_destroy(server);
  DestroyUsers();
}

/* Chunked replies: a participant with 128-byte chunks answers with pieces the server
 * reassembles; the round completes. */
static void ChunkedRepliesAreReassembled(void) {
  CreateUsers();
  fedmf_participant_destroy(users[0]);
  uint8_t config[48];
  users[0] = NULL;
  CHECK(fedmf_participant_create(config, capi_config(config, 1, ITEMS, 128, 11), &users[0]) ==
        FEDMF_OK);
  CHECK(fedmf_participant_set_rating(users[0], 3, 4.0f) == FEDMF_OK);
  capi_server* server = NewServer(0);
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT);
  capi_server_destroy(server);
  DestroyUsers();
}

/* A participant configured with fewer items than the model (25 of 30) is refused at its first
 * task with FEDMF_ERR_INCOMPATIBLE_MODEL naming both sizes and keeps no model; the round completes
 * without it (its silence is a dropout). */
static void AMismatchedCatalogueIsRefused(void) {
  CreateUsers();
  fedmf_participant_destroy(users[0]);
  uint8_t config[48];
  users[0] = NULL;
  CHECK(fedmf_participant_create(config, capi_config(config, 1, ITEMS - 5, 0, 11), &users[0]) ==
        FEDMF_OK);
  CHECK(fedmf_participant_model_num_items(users[0]) == 0);
  capi_server* server = NewServer(0);
  CHECK(capi_server_start_round(server) == 0);
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  CHECK(capi_server_contributors(server) == COHORT - 1);
  CHECK(incompatible[0] == 1);
  CHECK(strstr(incompatible_error, "has 30 items, this client's catalogue 25") != NULL);
  CHECK(fedmf_participant_has_model(users[0]) == 0);
  CHECK(fedmf_participant_model_num_items(users[0]) == 0);
  for (int i = 1; i < COHORT; ++i) CHECK(incompatible[i] == 0);
  capi_server_destroy(server);
  DestroyUsers();
}

#define LARGE_ITEMS 45000
#define LARGE_D 16384

/* The write-ahead state stays small with a large model (docs/mobile.md, "Size"): 45,000 items at
 * rank 14 (a 5 MB model) and SecAgg vectors of d = 2^14 values (PBM, rotated_l2: p = 1125,
 * p k = 15750). Every user is saved and restored after every message of a round, as the
 * write-ahead rule asks: the round applies with all 10, each user stored the model blob once,
 * and no state reached 64 KiB. */
static void TheWriteAheadStateStaysSmallWithALargeModel(void) {
  CreateUsersWith(LARGE_ITEMS);
  uint32_t ids[COHORT];
  for (uint32_t i = 0; i < COHORT; ++i) ids[i] = i + 1;
  capi_server* server = capi_server_create_pbm(ids, COHORT, 6, LARGE_ITEMS, 14, 40);
  CHECK(server != NULL);
  if (server == NULL) {
    DestroyUsers();
    return;
  }
  CHECK(capi_server_start_round(server) == 0);
  restart_after_handle = 1;
  CHECK(FinishRound(server) == CAPI_ROUND_APPLIED);
  restart_after_handle = 0;
  CHECK(capi_server_contributors(server) == COHORT);
  CHECK(capi_server_last_sum(server, NULL, 0) == LARGE_D);
  for (int i = 0; i < COHORT; ++i) {
    CHECK(refused[i] == 0);
    CHECK(model_saves[i] == 1);
  }
  printf("  d = %d: largest state %zu bytes, model blob %zu bytes\n", LARGE_D, largest_state,
         stored_model_len[0]);
  CHECK(largest_state > 0 && largest_state < 65536);
  CHECK(stored_model_len[0] > (size_t)LARGE_ITEMS * 14 * 8);
  capi_server_destroy(server);
  DestroyUsers();
}

/* The largest state any of the 10 users saved before the task: the state between rounds. */
static size_t LargestSavedState(void) {
  size_t largest = 0;
  for (int i = 0; i < COHORT; ++i) {
    uint8_t* state = NULL;
    size_t len = 0;
    CHECK(fedmf_participant_save(users[i], &state, &len) == FEDMF_OK);
    if (len > largest) largest = len;
    fedmf_free(state);
  }
  return largest;
}

/* The write-ahead state's size (fedmf_participant_save, docs/mobile.md "Size") for every
 * mechanism and item model at 45,000 items and rank 14, with m / p = 2 (runtime.md's example:
 * d = 315,000 values; PBM's rotation pads to 2^19) and m / p = 40 (d about 2^14; alone under the
 * sanitizers), unsigned and signed: every user saves after every message of a round. Each state
 * is at most S + I + (256 + 64 signed) n + 512 bytes: S the state before the task, n = 10 the
 * cohort, and I = ceil(d b / 8), the b-bit packed input, from the task until the
 * MaskedInputRequest (the AdvertiseKeys and ShareKeys replies), 0 after it. There the state is at
 * least I: the input is the part that grows with d, so the state is under 64 KiB only where d b
 * is. */
static void TheWriteAheadStateIsBoundedByTheInputForEveryMechanismAndItemModel(void) {
  static const char* const kMechanisms[] = {"pbm", "gaussian", "none"};
#ifdef FEDMF_SANITIZED
  /* m / p = 40 only: the same code at d about 2^14, where m / p = 2 took minutes. */
  static const double kCompressions[] = {40};
#else
  static const double kCompressions[] = {2, 40};
#endif
  for (int signatures = 0; signatures <= 1; ++signatures) {
    for (int mechanism = CAPI_PBM; mechanism <= CAPI_NONE; ++mechanism) {
      for (int item_model = CAPI_COMPRESSED; item_model <= CAPI_FULL; ++item_model) {
        for (size_t c = 0; c < sizeof kCompressions / sizeof kCompressions[0]; ++c) {
          const int before = capi_failures;
          CreateUsersWith(LARGE_ITEMS);
          uint32_t ids[COHORT];
          for (uint32_t i = 0; i < COHORT; ++i) ids[i] = i + 1;
          capi_server* server = capi_server_create_dpmf(ids, COHORT, 6, signatures, LARGE_ITEMS, 14,
                                                        kCompressions[c], mechanism, item_model);
          CHECK(server != NULL);
          if (server == NULL) {
            DestroyUsers();
            continue;
          }
          if (signatures) RegisterUsers(server);
          const size_t between = LargestSavedState();
          CHECK(capi_server_start_round(server) == 0);
          const uint64_t d = capi_server_plan_length(server);
          const int b = capi_server_plan_bits(server);
          const size_t input = (size_t)((d * (uint64_t)b + 7) / 8);
          const size_t rest = between + (size_t)(256 + 64 * signatures) * COHORT + 512;
          memset(largest_in_stage, 0, sizeof largest_in_stage);
          measure_after_handle = 1;
          int state = CAPI_ROUND_RUNNING;
          for (pump_stage = 0; state == CAPI_ROUND_RUNNING && pump_stage < MEASURED_STAGES - 1;
               ++pump_stage) {
            Pump(server);
            state = capi_server_close_stage(server);
          }
          Pump(server); /* the RoundResult, counted in the last stage */
          measure_after_handle = 0;
          CHECK(state == CAPI_ROUND_APPLIED);
          CHECK(capi_server_contributors(server) == COHORT);
          printf(
              "  %s, %s, m/p %g, %s: d = %llu, b = %d, I = %zu; state before the task %zu, "
              "largest by stage:",
              kMechanisms[mechanism], item_model == CAPI_FULL ? "full" : "compressed",
              kCompressions[c], signatures ? "signed" : "unsigned", (unsigned long long)d, b, input,
              between);
          for (int k = 0; k <= pump_stage; ++k) printf(" %zu", largest_in_stage[k]);
          printf(" (bound %zu, then %zu)\n", rest + input, rest);
          for (int k = 0; k <= pump_stage; ++k) {
            const int holds_input = k < 2; /* the AdvertiseKeys and ShareKeys replies */
            CHECK(largest_in_stage[k] > 0);
            CHECK(largest_in_stage[k] <= rest + (holds_input ? input : 0));
            if (holds_input) CHECK(largest_in_stage[k] >= input);
          }
          if (capi_failures != before) {
            fprintf(stderr, "  (%s, item model %d, m/p %g, signatures %d)\n",
                    kMechanisms[mechanism], item_model, kCompressions[c], signatures);
          }
          capi_server_destroy(server);
          DestroyUsers();
        }
      }
    }
  }
}

int main(void) {
  RUN_TEST(AWholeRoundUpdatesTheModel);
  RUN_TEST(ASignedRoundWithTheConsistencyCheck);
  RUN_TEST(AVersion1StateDropsOutOfTheRoundInProgress);
  RUN_TEST(RestoredParticipantsContinueTheRound);
  RUN_TEST(ARestoredParticipantKeepsItsModel);
  RUN_TEST(ChunkedRepliesAreReassembled);
  RUN_TEST(AMismatchedCatalogueIsRefused);
  RUN_TEST(TheWriteAheadStateStaysSmallWithALargeModel);
  RUN_TEST(TheWriteAheadStateIsBoundedByTheInputForEveryMechanismAndItemModel);
  return capi_failures != 0;
}
