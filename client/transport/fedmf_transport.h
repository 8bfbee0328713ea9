/* A minimal blocking gRPC transport with a C interface, for the pure-C example program and its
 * integration test: it moves the serialized fedmf.v1 messages of the mobile C API
 * (fedmf/fedmf_client.h) over Federation.Register, one Participate stream and Models.Download,
 * the way an app's
 * own networking would (grpc-java / grpc-swift with a bytes marshaller and gRPC's default 4 MiB
 * receive limit): it links gRPC but no generated fedmf code. NOT part of the mobile ABI. One
 * transport is used from one thread.
 */
#ifndef FEDMF_CLIENT_TRANSPORT_FEDMF_TRANSPORT_H_
#define FEDMF_CLIENT_TRANSPORT_FEDMF_TRANSPORT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fedmf_transport fedmf_transport;

/* A channel to `target` (host:port, insecure). NULL on failure. */
fedmf_transport* fedmf_transport_connect(const char* target);
/* Ends any open stream and closes the channel (NULL is a no-op). */
void fedmf_transport_destroy(fedmf_transport* transport);

/* Federation.Register with a serialized RegisterRequest; the serialized RegisterResponse in
 * *response, *response_len (free with fedmf_transport_free). 0 on success, else the gRPC status
 * code; fedmf_transport_error() says why. Waits at most `timeout_ms`. */
int fedmf_transport_register(fedmf_transport* transport, const uint8_t* request, size_t len,
                             int timeout_ms, uint8_t** response, size_t* response_len);

/* Opens the Participate stream with the session token (bytes from
 * fedmf_participant_open_stream) as its metadata FEDMF_SESSION_TOKEN_METADATA_KEY. 0 on
 * success. */
int fedmf_transport_open(fedmf_transport* transport, const uint8_t* session_token, size_t len);
/* Writes one serialized ClientMessage (opaque bytes). 0 on success, 2 if the stream is
 * closed. */
int fedmf_transport_write(fedmf_transport* transport, const uint8_t* message, size_t len);
/* Blocks for the next ServerMessage: 0 with its bytes in *message, *len (free with
 * fedmf_transport_free), 1 when the stream ended (fedmf_transport_finish gives the status). */
int fedmf_transport_read(fedmf_transport* transport, uint8_t** message, size_t* len);
/* Half-closes and finishes the stream: 0 for an OK status, else the gRPC status code. */
int fedmf_transport_finish(fedmf_transport* transport);

/* Models.Download: sends a serialized DownloadModelRequest with the session token as metadata
 * FEDMF_SESSION_TOKEN_METADATA_KEY and passes each ModelChunk's bytes to `on_chunk` (with `ctx`),
 * in order, until the call ends; `on_chunk` returning nonzero breaks the call off (cancelled, as
 * a lost connection would). 0 when the call ended OK, else the gRPC status code (1, CANCELLED,
 * when broken off). Waits at most `timeout_ms` in all. */
int fedmf_transport_download(fedmf_transport* transport, const uint8_t* session_token,
                             size_t token_len, const uint8_t* request, size_t len, int timeout_ms,
                             int (*on_chunk)(void* ctx, const uint8_t* chunk, size_t chunk_len),
                             void* ctx);

/* The last error of this transport ("" if none), valid until its next call. */
const char* fedmf_transport_error(const fedmf_transport* transport);
void fedmf_transport_free(void* buffer);

#ifdef __cplusplus
}
#endif

#endif /* FEDMF_CLIENT_TRANSPORT_FEDMF_TRANSPORT_H_ */
