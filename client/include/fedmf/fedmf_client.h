/* fedmf mobile client library: a stable C ABI over the client core for Android (JNI) and iOS
 * (Swift) apps. The app owns networking: it sends the bytes this library produces (serialized
 * fedmf.v1 protobuf messages, proto/fedmf/v1/federation.proto) over its own gRPC stack and feeds
 * back what the coordinator sends. The library owns the protocol (SecAgg, chunking), the privacy
 * noise and the model. No C++ type or exception crosses this boundary; every byte the app or the
 * server hands in is validated, malformed input yields an error code, never a crash, and nothing
 * on stderr (a string field that is not UTF-8 is refused by the library, naming the field, before
 * libprotobuf's parser could log it).
 *
 * Conventions:
 *  - Functions return fedmf_status; FEDMF_OK is 0. After a failure, fedmf_last_error() names the
 *    cause (per thread).
 *  - Handles are opaque. Bytes are (pointer, length) pairs; a NULL pointer is allowed with length
 * 0.
 *  - Byte buffers returned to the app are freed with fedmf_free, message lists with
 *    fedmf_messages_free.
 *  - Thread safety: calls on DIFFERENT handles may run concurrently on any threads. Calls on the
 *    SAME participant handle must not overlap (serialize them, e.g. on one dispatch queue or one
 *    Java thread); a handle may move between threads between calls. Functions marked
 *    "thread-safe" may be called from anywhere at any time. A fedmf_messages list is immutable:
 *    any number of threads may read it until it is freed. Each function states its own rule.
 *  - Persistence: save the state after every fedmf_participant_handle and before sending its
 *    replies (write-ahead, see fedmf_participant_save), and the model when it changed. */
#ifndef FEDMF_FEDMF_CLIENT_H_
#define FEDMF_FEDMF_CLIENT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define FEDMF_API
#else
#define FEDMF_API __attribute__((visibility("default")))
#endif

/* Bumped on any incompatible change of this header. 2: the saved state leaves the model out
 * (fedmf_participant_save_model). 3: fedmf_participant_open_stream returns the session token for
 * the stream's metadata instead of a first message. Functions added compatibly raise the minor
 * version of fedmf_version() instead: 0.2.0 added the published-model functions. */
#define FEDMF_ABI_VERSION 3

/* The gRPC metadata key (binary, "-bin") under which the app opens the Participate stream with
 * the session token from fedmf_participant_open_stream. */
#define FEDMF_SESSION_TOKEN_METADATA_KEY "fedmf-session-token-bin"

typedef enum fedmf_status {
  FEDMF_OK = 0,
  /* A NULL handle or pointer, a value out of range, or bytes that do not parse or do not fit
   * the protocol (a malformed config, state or server message). */
  FEDMF_ERR_INVALID_ARGUMENT = 1,
  /* The call does not fit the participant's state: e.g. a SecAgg message of a round this
   * participant is not in (late, or begun before a restore from a version-1 state), or a
   * recommendation before any model arrived. Nothing changed; the app sends nothing and goes on. */
  FEDMF_ERR_FAILED_PRECONDITION = 2,
  /* The server asked for something the library refuses to do (e.g. to upload in the clear a
   * vector meant for secure aggregation). */
  FEDMF_ERR_PERMISSION_DENIED = 3,
  /* The item has no rating to remove. */
  FEDMF_ERR_NOT_FOUND = 4,
  /* Anything else (e.g. the OS random generator failed). */
  FEDMF_ERR_INTERNAL = 5,
  /* The coordinator's model covers another item catalogue than the config's num_items (see
   * fedmf_participant_model_num_items). The participant keeps its previous model and cannot take
   * part: no retry fixes this. Close the stream (the coordinator then drops the device at once,
   * instead of after a stage timeout) and ship a config with the coordinator's catalogue. */
  FEDMF_ERR_INCOMPATIBLE_MODEL = 6
} fedmf_status;

typedef struct fedmf_participant fedmf_participant;
typedef struct fedmf_messages fedmf_messages;

/* The fedmf release "MAJOR.MINOR.PATCH" (e.g. "0.1.0"), a static string. Thread-safe. Not the
 * shared library's file version: libfedmf_mobile.so.A.MINOR.PATCH, whose A (the SONAME) is
 * FEDMF_ABI_VERSION. */
FEDMF_API const char* fedmf_version(void);
/* FEDMF_ABI_VERSION of the compiled library: check it against the header's. Thread-safe. */
FEDMF_API uint32_t fedmf_abi_version(void);
/* The wire protocol version the library speaks (RegisterRequest.protocol_version). Thread-safe. */
FEDMF_API uint32_t fedmf_protocol_version(void);

/* The message of the last failed call on the calling thread ("" if none), valid until the next
 * call of this library on that thread. Thread-safe. */
FEDMF_API const char* fedmf_last_error(void);

/* Frees a buffer returned by this library (NULL is a no-op). Thread-safe. */
FEDMF_API void fedmf_free(void* buffer);

/* ---- Lifecycle ---------------------------------------------------------------------------- */

/* Creates a participant from a serialized fedmf.v1.ParticipantConfig (proto/fedmf/v1/mobile.proto:
 * participant id >= 1, num_items >= 1, optional chunk size, optional largest download, optional
 * privacy budget of its own, e.g. "approx:1,1e-6"), with no ratings, no model, an empty privacy ledger and a fresh Ed25519
 * signing key. On success *out is a new handle. Thread-safe. */
FEDMF_API fedmf_status fedmf_participant_create(const uint8_t* config, size_t config_len,
                                                fedmf_participant** out);

/* Destroys a participant and wipes its secrets (NULL is a no-op). Not with any other call on the
 * same handle (nor after it): the handle is gone. */
FEDMF_API void fedmf_participant_destroy(fedmf_participant* participant);

/* The participant persists in two blobs: its STATE (fedmf_participant_save), small, saved after
 * every message of a round, and its MODEL (fedmf_participant_save_model), large (the item
 * factors), changed once per round when a task or the final model arrives. The state names its
 * model by the model's id, the SHA-256 of the model blob. App recipe (docs/mobile.md):
 *   after fedmf_participant_handle, before sending its replies:
 *     1. if fedmf_participant_model_id differs from the id of the model blob last stored:
 *        store fedmf_participant_save_model's blob under its id (a new file, durably);
 *     2. store fedmf_participant_save's state (replacing the old one atomically, durably);
 *     3. delete model blobs other than the one the state names;
 *   at start: fedmf_state_model_id names the model blob to pass to
 *   fedmf_participant_restore_with_model with the state. */
#define FEDMF_MODEL_ID_BYTES 32

/* The longest user factor a restored state may hold (values; a model's rank is far below it). */
#define FEDMF_MAX_USER_FACTOR_LENGTH 4096

/* Serializes everything the participant needs after an app restart but its model into a new
 * buffer (*out, *out_len; free with fedmf_free), as a fedmf.v1.ParticipantState (format_version
 * 4): config, signing key, ratings, the id of its model, user factor, progress, the round in
 * progress with its SecAgg session (keys, input, shares held, and the ledger of shares already
 * revealed), and its local state: its algorithms' states and, with a budget, its own privacy
 * ledger. SIZE (docs/mobile.md, "Size"): between rounds S, about 6 bytes a rating, 8 a user
 * factor value, the local state and 100 more, whatever the model; during a round at most
 * S + 512 + (256, or 320 signed) n + I bytes for a cohort of n, where I = ceil(d b / 8) from the
 * task until the MaskedInputRequest is handled, else 0: the round's input, d values of b bits
 * (the plan's length and bits). I grows with d, which the algorithm sets (DPMF-RP: about
 * num_items x rank / compression whatever its item model, e.g. 1,063,125 bytes at 45,000 items,
 * rank 14, --set compression=2), and it is kept whole because it is the user's noisy contribution,
 * drawn once: a restored participant must mask and send the very vector the saved one would have.
 * It holds secrets and is not authenticated: store it encrypted with an authenticated cipher
 * where only the app can write (Keystore / Keychain, docs/mobile.md).
 * WRITE-AHEAD RULE: during a round, save (and durably store) the state after
 * fedmf_participant_handle returns and BEFORE sending its replies. A state older than a reply
 * that was sent does not know the shares that reply revealed; restored from it, the participant
 * could be asked for the other share of the same client, and a malicious server would then hold
 * both shares and unmask that client's input. Never restore a state older than the last one
 * saved. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_save(const fedmf_participant* participant, uint8_t** out,
                                              size_t* out_len);

/* The id of the participant's model (FEDMF_MODEL_ID_BYTES bytes to `id`): the SHA-256 of the
 * blob fedmf_participant_save_model returns, which the saved state names. It changes exactly
 * when the model does: compare it with the stored blob's to save a new model only then.
 * FEDMF_ERR_FAILED_PRECONDITION without a model. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_model_id(const fedmf_participant* participant,
                                                  uint8_t id[FEDMF_MODEL_ID_BYTES]);

/* Serializes the participant's model into a new buffer (*out, *out_len; free with fedmf_free),
 * as a fedmf.v1.SavedModel (format_version 1): the plan the coordinator sent every participant
 * (the item factors), no secret of the user. FEDMF_ERR_FAILED_PRECONDITION without a model.
 * Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_save_model(const fedmf_participant* participant,
                                                    uint8_t** out, size_t* out_len);

/* Reads from a saved state the id of the model blob it names (FEDMF_MODEL_ID_BYTES bytes to
 * `id`), to find the blob to restore it with. FEDMF_ERR_NOT_FOUND if it names none (no model was
 * saved, or a version 1 to 3 state, which holds its model itself); FEDMF_ERR_INVALID_ARGUMENT
 * for bytes that are not a state (they do not parse, or empty bytes or any format_version other
 * than 1 to 4) or a model id that is not FEDMF_MODEL_ID_BYTES long. Thread-safe. */
FEDMF_API fedmf_status fedmf_state_model_id(const uint8_t* state, size_t state_len,
                                            uint8_t id[FEDMF_MODEL_ID_BYTES]);

/* Creates a participant from a state fedmf_participant_save produced and the model blob it names
 * (fedmf_participant_save_model's bytes; NULL with model_len 0 for none). A participant saved
 * during a round continues it: it answers that round's next server message exactly as the saved
 * one would have (given the stream still reaches the coordinator's round: docs/mobile.md), and
 * until it handles a message fedmf_participant_save returns the bytes of a version-4 state it was
 * restored from with its model blob.
 * Without its model blob (lost, or none passed) the participant has no model (no
 * recommendations) until its next task brings one; everything else is restored, a round in
 * progress included. A model blob whose SHA-256 is not the id the state names, or passed with a
 * state that names none, is refused (FEDMF_ERR_INVALID_ARGUMENT). Older states: a version-1
 * state (no session) restores a participant that drops out of the round in progress: its SecAgg
 * messages are refused with FEDMF_ERR_FAILED_PRECONDITION and it takes part again from the next
 * task; a version-2 state (no local state) restores a participant whose algorithms start afresh;
 * versions 1 to 3 hold their model themselves. Every field is validated
 * (FEDMF_ERR_INVALID_ARGUMENT naming it), with or without a model blob: among others a user
 * factor with a value that is not finite or longer than FEDMF_MAX_USER_FACTOR_LENGTH, a model id
 * that is not FEDMF_MODEL_ID_BYTES long. The state is NOT authenticated (no checksum or MAC): a
 * state altered within these bounds restores, so store it where only the app can write, under
 * authenticated encryption (docs/mobile.md, "Integrity"). Thread-safe. */
FEDMF_API fedmf_status fedmf_participant_restore_with_model(const uint8_t* state, size_t state_len,
                                                            const uint8_t* model, size_t model_len,
                                                            fedmf_participant** out);

/* fedmf_participant_restore_with_model without a model blob. Thread-safe. */
FEDMF_API fedmf_status fedmf_participant_restore(const uint8_t* state, size_t state_len,
                                                 fedmf_participant** out);

/* ---- Local ratings (never leave the device) ----------------------------------------------- */

/* The largest rating magnitude the library takes. It knows no rating scale before a model
 * arrives (the coordinator's --rating_min, --rating_max travel in the model), so it refuses only
 * absurd values; keep ratings on the scale the coordinator trains with. */
#define FEDMF_MAX_ABS_RATING 1000000

/* Adds or replaces the rating of dense item `item` in [0, num_items); `rating` must be finite and
 * in [-FEDMF_MAX_ABS_RATING, FEDMF_MAX_ABS_RATING] (else FEDMF_ERR_INVALID_ARGUMENT naming the
 * rating and the item).
 * Takes effect from the next task (a round in progress keeps the contribution it made). Serialize
 * with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_set_rating(fedmf_participant* participant, int32_t item,
                                                    float rating);
/* Removes the rating of `item`; FEDMF_ERR_NOT_FOUND if there is none. Serialize with other calls on
 * the same handle. */
FEDMF_API fedmf_status fedmf_participant_remove_rating(fedmf_participant* participant,
                                                       int32_t item);
/* Number of local ratings (0 for a NULL handle). Serialize with other calls on the same handle. */
FEDMF_API size_t fedmf_participant_rating_count(const fedmf_participant* participant);

/* ---- Protocol ----------------------------------------------------------------------------- */

/* The participant id of the config (0 for a NULL handle). Serialize with other calls on the same
 * handle. */
FEDMF_API uint32_t fedmf_participant_id(const fedmf_participant* participant);

/* A serialized fedmf.v1.RegisterRequest for Federation.Register: protocol version, `client_name`
 * (for logs) and `enrollment_token`, both NUL-terminated UTF-8 (protobuf strings; NULL is
 * empty; FEDMF_ERR_INVALID_ARGUMENT for invalid UTF-8), the signing public key and this
 * participant's id. Buffer in *out, *out_len; free with fedmf_free. Serialize with other calls on
 * the same handle. */
FEDMF_API fedmf_status fedmf_participant_register_request(const fedmf_participant* participant,
                                                          const char* client_name,
                                                          const char* enrollment_token,
                                                          uint8_t** out, size_t* out_len);

/* Reads a serialized fedmf.v1.RegisterResponse and returns its session token in *out, *out_len
 * (free with fedmf_free): the app opens the Participate stream with these bytes as the value of
 * the binary metadata FEDMF_SESSION_TOKEN_METADATA_KEY (the coordinator refuses a stream without
 * it, UNAUTHENTICATED, before reading anything). If the response says training is done, the
 * participant records it (see fedmf_participant_training_done) and the app need not open the
 * stream. FEDMF_ERR_INVALID_ARGUMENT for bytes that are not a RegisterResponse, or one with no
 * session token while training is not done. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_open_stream(fedmf_participant* participant,
                                                     const uint8_t* response, size_t response_len,
                                                     uint8_t** out, size_t* out_len);

/* Feeds one serialized fedmf.v1.ServerMessage received on the Participate stream. On success
 * *replies is a new list (possibly empty) of serialized fedmf.v1.ClientMessages to write on the
 * stream in order; free it with fedmf_messages_free. On failure *replies is NULL, nothing is to
 * be sent and the participant stays usable (its ratings, key and progress are unchanged; a task
 * it could not answer may have replaced the model; the result that ends training ends it even
 * when its final model is refused): the app logs fedmf_last_error() and keeps the stream open.
 * The result that ends training brings the final model, which becomes the participant's. During
 * a round, save the state before sending the replies (write-ahead: see fedmf_participant_save).
 * Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_handle(fedmf_participant* participant,
                                                const uint8_t* message, size_t message_len,
                                                fedmf_messages** replies);

/* Messages in a list (0 for NULL). Thread-safe on a list not being freed. */
FEDMF_API size_t fedmf_messages_count(const fedmf_messages* messages);
/* Message `index` of a list: *data points into the list (valid until it is freed). Thread-safe
 * on a list not being freed. */
FEDMF_API fedmf_status fedmf_messages_get(const fedmf_messages* messages, size_t index,
                                          const uint8_t** data, size_t* len);
/* Frees a list (NULL is a no-op). Not concurrently with any other use of that list. */
FEDMF_API void fedmf_messages_free(fedmf_messages* messages);

/* The run's count of applied training rounds, as the last RoundResult this participant received
 * said (RoundResult.rounds_completed): the coordinator's progress, which counts rounds this
 * device missed or sat out, not the rounds it contributed to. 0 for NULL. Serialize with other
 * calls on the same handle. */
FEDMF_API int64_t fedmf_participant_rounds_completed(const fedmf_participant* participant);
/* 1 once the coordinator said training is over, else 0. Serialize with other calls on the same
 * handle. */
FEDMF_API int fedmf_participant_training_done(const fedmf_participant* participant);
/* Check-in (docs/mobile.md, "Check-in"): when the coordinator does not need this device now it
 * sends a CheckInLater and ends the stream (status OK). This returns its delay in milliseconds,
 * once (-1: none came since the last call, or NULL): register again and open the next stream
 * after that delay, not before, so that the device holds no connection while it is not needed.
 * Serialize with other calls on the same handle. */
FEDMF_API int64_t fedmf_participant_take_check_in_ms(fedmf_participant* participant);

/* ---- Published models (docs/mobile.md, "Late devices") ------------------------------------ */

/* The coordinator publishes models (its run's final model, and optionally one every few rounds)
 * and keeps serving them after training when started with --serve. A device that missed the end
 * of training (offline, or restored from a state saved before the final model arrived) learns
 * the newest version from its next RegisterResponse and downloads it over Models.Download:
 *   fedmf_participant_open_stream(response)    records the newest published version;
 *   while fedmf_participant_download_request gives a request (FEDMF_OK):
 *     call Models.Download with it and the session token as metadata (as for Participate);
 *     feed every ModelChunk to fedmf_participant_handle_model_chunk until *complete is 1;
 *     if the call broke off, ask for a new request: it resumes after the bytes received;
 *   then save the model blob and the state as for any new model.
 * "Training is over" (fedmf_participant_training_done) and "here is the final model"
 * (fedmf_participant_model_version equal to fedmf_participant_latest_model_version) both come
 * from a coordinator that answered; an unreachable one is the app's gRPC error. */

/* The version of the newest model the last RegisterResponse named (0: none published). Serialize
 * with other calls on the same handle. */
FEDMF_API int64_t fedmf_participant_latest_model_version(const fedmf_participant* participant);
/* The published version of the participant's model (0: no model, or a model of a round's task,
 * which is not a published version). Serialize with other calls on the same handle. */
FEDMF_API int64_t fedmf_participant_model_version(const fedmf_participant* participant);

/* A serialized fedmf.v1.DownloadModelRequest for the newest published version, continuing a
 * download in progress from the bytes already received (*out, *out_len; free with fedmf_free).
 * FEDMF_ERR_FAILED_PRECONDITION when none is published or the participant holds it already;
 * FEDMF_ERR_INVALID_ARGUMENT for a published version it cannot download (a size of 0 or over its
 * config's max_download_bytes). A download in progress lives in memory only: after a restore it
 * starts over. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_download_request(fedmf_participant* participant,
                                                          uint8_t** out, size_t* out_len);

/* Feeds one serialized fedmf.v1.ModelChunk of the download in progress. *complete becomes 1 once
 * the model is whole, its SHA-256 is the published one and it became the participant's model
 * (save it, fedmf_participant_save_model, and the state); else 0. FEDMF_ERR_INVALID_ARGUMENT for a
 * chunk that does not continue the download (nothing changed: end the call and ask for a new
 * request) or a whole model that fails its hash (discarded: the next request starts over);
 * FEDMF_ERR_INCOMPATIBLE_MODEL for a model of another catalogue; FEDMF_ERR_FAILED_PRECONDITION
 * without a download in progress. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_handle_model_chunk(fedmf_participant* participant,
                                                            const uint8_t* chunk, size_t chunk_len,
                                                            int* complete);

/* ---- Local model queries ------------------------------------------------------------------ */

/* 1 if a model arrived (a task, the final model of the result that ends training, or a restored
 * state with one), else 0. Serialize with other calls
 * on the same handle. */
FEDMF_API int fedmf_participant_has_model(const fedmf_participant* participant);

/* The number of items the last model covers (the coordinator's catalogue; 0 without a model).
 * Item indices of fedmf_participant_recommend and _predict are in [0, this). A task or final model
 * whose size differs from the config's num_items is refused (FEDMF_ERR_INCOMPATIBLE_MODEL), so a
 * model this returns always matches the config. Serialize with other calls on the same handle. */
FEDMF_API int32_t fedmf_participant_model_num_items(const fedmf_participant* participant);

/* The top-`n` (n >= 1) unrated items under the last model, best first: writes up to `capacity`
 * item indices and scores (either array may be NULL when capacity is 0) and the number written
 * in *count (at most min(n, capacity, unrated items)). The scores are RANKING scores, not ratings:
 * higher ranks first, they compare items for this user only and are on no rating scale (a factor
 * model ranks with a user factor fitted for ranking, which differs from the rating fit of
 * fedmf_participant_predict, so the two may order items differently). Show ratings with _predict.
 * FEDMF_ERR_FAILED_PRECONDITION without a model. Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_recommend(const fedmf_participant* participant, int32_t n,
                                                   int32_t* items, double* scores, size_t capacity,
                                                   size_t* count);

/* The predicted rating of `item` under the last model (the rating the federated evaluation
 * scores, from the local ratings; for a factor model with no ratings, 0), clamped to the rating
 * scale the model was trained on (the coordinator's --rating_min, --rating_max; a model from an
 * older coordinator that did not record it is not clamped).
 * FEDMF_ERR_FAILED_PRECONDITION without a model or for a model that only ranks items (it predicts
 * no ratings). Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_predict(const fedmf_participant* participant, int32_t item,
                                                 double* rating);

/* The user factor of the last contribution (empty before the first, and for a model without user
 * factors): writes up to `capacity` values and the factor's length in *len (call with capacity 0
 * to learn it). Serialize with other calls on the same handle. */
FEDMF_API fedmf_status fedmf_participant_user_factor(const fedmf_participant* participant,
                                                     double* out, size_t capacity, size_t* len);

#ifdef __cplusplus
}
#endif

#endif /* FEDMF_FEDMF_CLIENT_H_ */
