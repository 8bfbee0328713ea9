/* Test support for the C API's C tests: the coordinator's side of training rounds, in process,
 * behind a C interface. It plays DPMF-RP on 40 users x 30 items (rank 4, no noise; the client
 * tests' SmallUpdater; or a larger PBM model) with a real SecAgg ServerSession, exchanging
 * serialized fedmf.v1 messages exactly as the Participate stream would. Not part of the mobile ABI.
 */
#ifndef FEDMF_TESTS_UNIT_CAPI_TEST_SERVER_H_
#define FEDMF_TESTS_UNIT_CAPI_TEST_SERVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct capi_server capi_server;

enum capi_round_state { CAPI_ROUND_RUNNING = 0, CAPI_ROUND_APPLIED = 1, CAPI_ROUND_FAILED = 2 };

/* A server whose rounds ask participants `ids` (a cohort of `n` <= 10, ids in [1, 40]) with
 * SecAgg threshold `threshold`; `signatures` != 0: signed advertisements and the consistency
 * check. NULL on invalid parameters. */
capi_server* capi_server_create(const uint32_t* ids, size_t n, int threshold, int signatures);
/* As capi_server_create (unsigned), playing DPMF-RP with PBM noise (epsilon 1, rotated_l2
 * geometry: D = 2^ceil(log2(p k)) values per SecAgg vector, p = ceil(num_items / compression))
 * over `num_items` items at rank `rank`. NULL on invalid parameters. */
capi_server* capi_server_create_pbm(const uint32_t* ids, size_t n, int threshold, int32_t num_items,
                                    int rank, double compression);
/* DPMF-RP's mechanisms and item models (config.h Mechanism, ItemModel), for
 * capi_server_create_dpmf. */
enum capi_mechanism { CAPI_PBM = 0, CAPI_GAUSSIAN = 1, CAPI_NONE = 2 };
enum capi_item_model { CAPI_COMPRESSED = 0, CAPI_FULL = 1 };
/* As capi_server_create, playing DPMF-RP with `mechanism` (epsilon 1; PBM in the rotated_l2
 * geometry) and `item_model` over `num_items` items at rank `rank` and m / p = `compression`.
 * NULL on invalid parameters. */
capi_server* capi_server_create_dpmf(const uint32_t* ids, size_t n, int threshold, int signatures,
                                     int32_t num_items, int rank, double compression, int mechanism,
                                     int item_model);
void capi_server_destroy(capi_server* server);

/* The SecAgg vector of the current round's plan: its length d and the bits b of every value
 * (0 before the first capi_server_start_round). */
uint64_t capi_server_plan_length(const capi_server* server);
int capi_server_plan_bits(const capi_server* server);

/* Reads a serialized RegisterRequest (as a participant made it) and records its signing key for
 * its participants. 0 on success. */
int capi_server_register(capi_server* server, const uint8_t* request, size_t len);

/* Starts the next round: queues one RoundTask per cohort member. 0 on success. */
int capi_server_start_round(capi_server* server);

/* Pops the next queued ServerMessage: 1 with its addressee in *to and its bytes in *data, *len
 * (valid until the next call), or 0 when nothing is queued. */
int capi_server_next(capi_server* server, uint32_t* to, const uint8_t** data, size_t* len);

/* Delivers one serialized ClientMessage (chunks are reassembled). 0 if the session accepted it. */
int capi_server_deliver(capi_server* server, const uint8_t* data, size_t len);

/* Closes the current stage (participants that did not answer drop out) and queues the next
 * stage's messages; when the session completes, applies the sum to the model and queues a
 * RoundResult to every cohort member. Returns a capi_round_state. */
int capi_server_close_stage(capi_server* server);

/* The last applied sum (the decoded SecAgg result): copies up to `capacity` values to `out` and
 * returns its length (0 before the first applied round). */
size_t capi_server_last_sum(const capi_server* server, uint64_t* out, size_t capacity);

/* Vectors in the last applied sum, and training rounds applied so far. */
int capi_server_contributors(const capi_server* server);
int64_t capi_server_rounds(const capi_server* server);

#ifdef __cplusplus
}
#endif

#endif /* FEDMF_TESTS_UNIT_CAPI_TEST_SERVER_H_ */
