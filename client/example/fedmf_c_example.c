/* fedmf-c-example: one on-device user in pure C, as a mobile app would run it. The mobile library
 * (fedmf/fedmf_client.h) owns the protocol, privacy and model; the networking is the app's, here
 * the minimal gRPC wrapper fedmf_transport.h. Flow: create (or restore from --state) a
 * participant, set its ratings, register, open the Participate stream, feed every server message
 * to the library and write back its replies until training is done, then print a local top-5
 * and save the state (--state=PATH) and the model blob it names (PATH.model-<id in hex>).
 * Reconnects (and re-registers) when the stream breaks. A device that registers after training
 * ended downloads the newest published model instead (Models.Download, resumed if the call
 * breaks; --break_download_after_chunks=N breaks the first call after N chunks, for tests), as
 * does, with --model_only, a device that only checks in for the model (e.g. between the runs of a
 * long-running service).
 *
 * Usage: fedmf-c-example --coordinator=HOST:PORT --id=N --num_items=M
 *            [--ratings=ITEM:RATING,...] [--token=ENROLLMENT_TOKEN] [--state=PATH]
 *            [--give_up_after_s=S] [--break_download_after_chunks=N] [--model_only] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/transport/fedmf_transport.h"
#include "fedmf/fedmf_client.h"

typedef struct {
  const char* coordinator;
  unsigned long id;
  long num_items;
  const char* ratings;
  const char* token;
  const char* state;
  long give_up_after_s;
  long break_download_after_chunks;
  int model_only;
} Options;

static const char* Flag(const char* arg, const char* name) {
  const size_t n = strlen(name);
  return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static void PrintUsage(FILE* to) {
  fprintf(to,
          "usage: fedmf-c-example --coordinator=HOST:PORT --id=N --num_items=M "
          "[--ratings=ITEM:RATING,...] [--token=T] [--state=PATH] [--give_up_after_s=S] "
          "[--break_download_after_chunks=N] [--model_only]\n"
          "One participant of a federated training, driven through the C API "
          "(libfedmf_mobile).\n");
}

/* 1: run; 0: exit 0 (--help); -1: exit 2 (bad usage, already reported). */
static int ParseOptions(int argc, char** argv, Options* o) {
  memset(o, 0, sizeof *o);
  o->token = "fedmf-demo"; /* fedmf-coordinator's default */
  o->ratings = "";
  o->give_up_after_s = 60;
  for (int i = 1; i < argc; ++i) {
    const char* v;
    if ((v = Flag(argv[i], "--coordinator")))
      o->coordinator = v;
    else if ((v = Flag(argv[i], "--id")))
      o->id = strtoul(v, NULL, 10);
    else if ((v = Flag(argv[i], "--num_items")))
      o->num_items = strtol(v, NULL, 10);
    else if ((v = Flag(argv[i], "--ratings")))
      o->ratings = v;
    else if ((v = Flag(argv[i], "--token")))
      o->token = v;
    else if ((v = Flag(argv[i], "--state")))
      o->state = v;
    else if ((v = Flag(argv[i], "--give_up_after_s")))
      o->give_up_after_s = strtol(v, NULL, 10);
    else if ((v = Flag(argv[i], "--break_download_after_chunks")))
      o->break_download_after_chunks = strtol(v, NULL, 10);
    else if (strcmp(argv[i], "--model_only") == 0)
      o->model_only = 1;
    else if (strcmp(argv[i], "--help") == 0) {
      PrintUsage(stdout);
      return 0;
    } else {
      fprintf(stderr, "fedmf-c-example: unknown argument %s (see --help)\n", argv[i]);
      return -1;
    }
  }
  if (o->coordinator == NULL || o->id == 0 || o->id > 0xffffffffUL || o->num_items < 1) {
    PrintUsage(stderr);
    return -1;
  }
  return 1;
}

/* The ParticipantConfig (proto/fedmf/v1/mobile.proto) by hand: fields 1 and 2, varints. An app
 * would use its protobuf runtime (protobuf-lite, SwiftProtobuf). */
static size_t EncodeConfig(uint8_t* out, uint32_t id, uint32_t num_items) {
  size_t n = 0;
  out[n++] = 0x08;
  for (uint64_t v = id;; v >>= 7) {
    out[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    if (v < 0x80) break;
  }
  out[n++] = 0x10;
  for (uint64_t v = num_items;; v >>= 7) {
    out[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    if (v < 0x80) break;
  }
  return n;
}

static uint8_t* ReadFile(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  uint8_t* data = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1)) != NULL) {
      *len = fread(data, 1, (size_t)size, f);
    }
  }
  fclose(f);
  return data;
}

static int Fail(const char* what) {
  fprintf(stderr, "fedmf-c-example: %s: %s\n", what, fedmf_last_error());
  return 1;
}

/* The file of the model blob with id `id` next to the state at `state_path`:
 * "<state_path>.model-<64 hex digits>" in `out` (of `capacity` bytes); 0 if it does not fit. */
static int ModelPath(const char* state_path, const uint8_t id[FEDMF_MODEL_ID_BYTES], char* out,
                     size_t capacity) {
  int n = snprintf(out, capacity, "%s.model-", state_path);
  for (int i = 0; i < FEDMF_MODEL_ID_BYTES && n >= 0 && (size_t)n < capacity; ++i) {
    n += snprintf(out + n, capacity - (size_t)n, "%02x", id[i]);
  }
  return n >= 0 && (size_t)n < capacity;
}

/* Writes `data` to `path` through a temporary file renamed over it: a crash leaves the old file
 * or the new one, never half of one. 1 on success. */
static int WriteFileAtomically(const char* path, const uint8_t* data, size_t len) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return 0;
  FILE* f = fopen(tmp, "wb");
  if (f == NULL) return 0;
  const int written = fwrite(data, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
  return fclose(f) == 0 && written && rename(tmp, path) == 0;
}

/* Restores from --state and the model blob it names; a missing blob restores without the model
 * (the next task brings it). */
static fedmf_participant* Restore(const char* state_path) {
  size_t len = 0, model_len = 0;
  uint8_t* state = ReadFile(state_path, &len);
  if (state == NULL) return NULL;
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  char model_path[4096];
  uint8_t* model = NULL;
  if (fedmf_state_model_id(state, len, id) == FEDMF_OK &&
      ModelPath(state_path, id, model_path, sizeof model_path) &&
      (model = ReadFile(model_path, &model_len)) == NULL) {
    fprintf(stderr, "fedmf-c-example: no model blob %s: restoring without the model\n", model_path);
  }
  fedmf_participant* p = NULL;
  const fedmf_status s = fedmf_participant_restore_with_model(state, len, model, model_len, &p);
  free(state);
  free(model);
  if (s != FEDMF_OK) {
    Fail("restore (starting afresh)");
    return NULL;
  }
  printf("event=c_example_restored participant=%u ratings=%zu model=%s\n", fedmf_participant_id(p),
         fedmf_participant_rating_count(p), fedmf_participant_has_model(p) ? "yes" : "no");
  return p;
}

/* Saves the model blob (if there is a model) under its id, then the state that names it. An
 * app saving after every message would write the blob only when the id changed, and delete the
 * blobs no state names any more. 1 on success. */
static int Save(const fedmf_participant* p, const char* state_path) {
  uint8_t *state = NULL, *model = NULL;
  size_t len = 0, model_len = 0;
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  char model_path[4096];
  int ok = 1;
  if (fedmf_participant_model_id(p, id) == FEDMF_OK) {
    ok = ModelPath(state_path, id, model_path, sizeof model_path) &&
         fedmf_participant_save_model(p, &model, &model_len) == FEDMF_OK &&
         WriteFileAtomically(model_path, model, model_len);
  }
  ok = ok && fedmf_participant_save(p, &state, &len) == FEDMF_OK &&
       WriteFileAtomically(state_path, state, len);
  if (ok) {
    printf("event=c_example_saved participant=%u state_bytes=%zu model_bytes=%zu\n",
           fedmf_participant_id(p), len, model_len);
  }
  fedmf_free(state);
  fedmf_free(model);
  return ok;
}

static fedmf_participant* CreateOrRestore(const Options* o) {
  fedmf_participant* p = o->state != NULL ? Restore(o->state) : NULL;
  if (p != NULL) return p;
  uint8_t config[16];
  if (fedmf_participant_create(
          config, EncodeConfig(config, (uint32_t)o->id, (uint32_t)o->num_items), &p) != FEDMF_OK) {
    Fail("create");
    return NULL;
  }
  return p;
}

static int SetRatings(fedmf_participant* p, const char* list) {
  while (*list != '\0') {
    char* end = NULL;
    const long item = strtol(list, &end, 10);
    if (end == list || *end != ':') return 0;
    const char* value = end + 1;
    const float rating = strtof(value, &end);
    if (end == value || fedmf_participant_set_rating(p, (int32_t)item, rating) != FEDMF_OK) {
      return 0;
    }
    list = *end == ',' ? end + 1 : end;
  }
  return 1;
}

/* A model download in progress: the participant fed, whether the model is whole, and the chunks
 * after which to break the call off (0: never). */
typedef struct {
  fedmf_participant* p;
  int complete;
  int failed;
  long chunks;
  long break_after;
} Download;

static int OnModelChunk(void* ctx, const uint8_t* chunk, size_t len) {
  Download* d = ctx;
  if (fedmf_participant_handle_model_chunk(d->p, chunk, len, &d->complete) != FEDMF_OK) {
    Fail("model chunk");
    d->failed = 1;
    return 1;
  }
  if (++d->chunks == d->break_after) {
    printf("event=c_example_download_broken participant=%u chunks=%ld\n",
           fedmf_participant_id(d->p), d->chunks);
    d->break_after = 0;
    return 1;
  }
  return 0;
}

/* After a RegisterResponse that says training is over (or with --model_only): downloads the
 * newest published model if the participant does not hold it, each new call resuming after the
 * bytes received. 1 when it holds the newest model (or none is published), 0 to try again later. */
static int DownloadLatest(fedmf_participant* p, const Options* o, fedmf_transport* t,
                          const uint8_t* token, size_t token_len) {
  Download d = {p, 0, 0, 0, o->break_download_after_chunks};
  for (int call = 0; call < 3 && !d.complete && !d.failed; ++call) {
    uint8_t* request = NULL;
    size_t len = 0;
    const fedmf_status s = fedmf_participant_download_request(p, &request, &len);
    if (s == FEDMF_ERR_FAILED_PRECONDITION) return 1; /* nothing newer than its model */
    if (s != FEDMF_OK) {
      Fail("download request");
      return 0;
    }
    const int code = fedmf_transport_download(t, token, token_len, request, len, 30000,
                                              OnModelChunk, &d);
    fedmf_free(request);
    if (code != 0 && !d.complete) {
      fprintf(stderr, "fedmf-c-example: download: gRPC status %d: %s\n", code,
              fedmf_transport_error(t));
    }
  }
  if (d.complete) {
    printf("event=c_example_downloaded participant=%u version=%lld chunks=%ld\n",
           fedmf_participant_id(p), (long long)fedmf_participant_model_version(p), d.chunks);
  }
  return d.complete;
}

/* One registration and stream. Returns 1 when training is done, 0 when the stream broke, -1 when
 * retrying is pointless: the coordinator refused the registration (wrong token, bad participant
 * id) or trains a model of another catalogue than --num_items (the stream is cancelled, so the
 * coordinator drops this participant at once). */
static int Session(fedmf_participant* p, const Options* o) {
  fedmf_transport* t = fedmf_transport_connect(o->coordinator);
  if (t == NULL) return 0;
  uint8_t *request = NULL, *response = NULL, *session_token = NULL;
  size_t request_len = 0, response_len = 0, session_token_len = 0;
  int done = 0, code = 0;
  if (fedmf_participant_register_request(p, "fedmf-c-example", o->token, &request, &request_len) !=
      FEDMF_OK) {
    Fail("register request");
  } else if ((code = fedmf_transport_register(t, request, request_len, 5000, &response,
                                              &response_len)) != 0) {
    fprintf(stderr, "fedmf-c-example: register: gRPC status %d: %s\n", code,
            fedmf_transport_error(t));
    /* UNAUTHENTICATED, INVALID_ARGUMENT, PERMISSION_DENIED */
    if (code == 16 || code == 3 || code == 7) done = -1;
  } else if (fedmf_participant_open_stream(p, response, response_len, &session_token,
                                           &session_token_len) != FEDMF_OK) {
    Fail("register response");
  } else if (fedmf_participant_training_done(p) || o->model_only) {
    done = DownloadLatest(p, o, t, session_token, session_token_len);
  } else if (fedmf_transport_open(t, session_token, session_token_len) == 0) {
    printf("event=c_example_registered participant=%u\n", fedmf_participant_id(p));
    fflush(stdout);
    uint8_t* message = NULL;
    size_t len = 0;
    while (!done && fedmf_transport_read(t, &message, &len) == 0) {
      fedmf_messages* replies = NULL;
      const fedmf_status handled = fedmf_participant_handle(p, message, len, &replies);
      if (handled == FEDMF_ERR_INCOMPATIBLE_MODEL) {
        fprintf(stderr, "event=c_example_incompatible_model error=\"%s\"\n", fedmf_last_error());
        fedmf_transport_free(message);
        done = -1;
        break;
      }
      if (handled != FEDMF_OK) {
        /* Not fatal: e.g. a late message of a round this user left. */
        fprintf(stderr, "event=c_example_error error=\"%s\"\n", fedmf_last_error());
      }
      for (size_t i = 0; i < fedmf_messages_count(replies); ++i) {
        const uint8_t* reply = NULL;
        size_t reply_len = 0;
        fedmf_messages_get(replies, i, &reply, &reply_len);
        if (fedmf_transport_write(t, reply, reply_len) != 0) break;
      }
      fedmf_messages_free(replies);
      fedmf_transport_free(message);
      done = fedmf_participant_training_done(p);
    }
    if (done != -1) fedmf_transport_finish(t); /* else fedmf_transport_destroy cancels it */
  }
  fedmf_free(request);
  fedmf_transport_free(response);
  fedmf_free(session_token);
  fedmf_transport_destroy(t);
  return done;
}

int main(int argc, char** argv) {
  Options o;
  const int parsed = ParseOptions(argc, argv, &o);
  if (parsed <= 0) return parsed == 0 ? 0 : 2;
  if (fedmf_abi_version() != FEDMF_ABI_VERSION) {
    fprintf(stderr, "fedmf-c-example: library ABI %u, header %d\n", fedmf_abi_version(),
            FEDMF_ABI_VERSION);
    return 1;
  }
  fedmf_participant* p = CreateOrRestore(&o);
  if (p == NULL) return 1;
  if (!SetRatings(p, o.ratings)) {
    fedmf_participant_destroy(p);
    return Fail("--ratings");
  }
  time_t start = time(NULL);
  /* A state saved after the end of training needs no connection. */
  int done = fedmf_participant_training_done(p);
  while (!done && !(done = Session(p, &o)) && time(NULL) - start < o.give_up_after_s) {
    /* Check-in: the coordinator ended the stream until it needs this device; the session's
     * transport (its connection) is gone meanwhile. Give up only a full period after that. */
    const int64_t later_ms = fedmf_participant_take_check_in_ms(p);
    const int64_t wait_ms = later_ms >= 0 ? later_ms : 200;
    if (later_ms >= 0) printf("event=c_example_check_in_later wait_ms=%lld\n", (long long)later_ms);
    struct timespec wait = {(time_t)(wait_ms / 1000), (long)(wait_ms % 1000) * 1000 * 1000};
    nanosleep(&wait, NULL);
    if (later_ms >= 0) start = time(NULL);
  }
  int32_t items[5];
  double scores[5];
  size_t count = 0;
  printf("event=c_example_end participant=%u done=%s rounds_completed=%lld top5=",
         fedmf_participant_id(p), done == 1 ? "yes" : "no",
         (long long)fedmf_participant_rounds_completed(p));
  if (fedmf_participant_recommend(p, 5, items, scores, 5, &count) == FEDMF_OK) {
    for (size_t i = 0; i < count; ++i) printf("%s%d:%.3f", i ? "," : "", items[i], scores[i]);
  }
  printf("\n");
  int rc = done == 1 ? 0 : 1;
  if (o.state != NULL && !Save(p, o.state)) rc = Fail("save state");
  fedmf_participant_destroy(p);
  return rc;
}
