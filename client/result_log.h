// The event line a client process logs for a coordinator's RoundResult, the same for the
// one-stream client (grpc_client.h) and the stream pool (stream_pool.h): event=round_result for
// an aggregation's result, event=training_done for the result that closes the run (its
// applied=false and contributors=0 are no failure, so they are not logged as one).
#ifndef FEDMF_CLIENT_RESULT_LOG_H_
#define FEDMF_CLIENT_RESULT_LOG_H_

#include "absl/strings/string_view.h"
#include "fedmf/v1/federation.pb.h"

namespace fedmf::client {

void LogRoundResult(absl::string_view client, const v1::RoundResult& result);

}  // namespace fedmf::client

#endif  // FEDMF_CLIENT_RESULT_LOG_H_
