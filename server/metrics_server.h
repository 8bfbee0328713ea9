// Serves the Prometheus scrape: GET /metrics answers the text a callback renders, from a thread
// of its own, over HTTP (cpp-httplib); any other request is refused (404, or 413 with a body). The
// endpoint has no authentication: bind it to an address only the scraper reaches (a pod's own
// IP, loopback), never to the public side (docs/deployment.md, "Metrics").
#ifndef FEDMF_SERVER_METRICS_SERVER_H_
#define FEDMF_SERVER_METRICS_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace httplib {
class Server;
}

namespace fedmf::server {

class MetricsServer {
 public:
  using Render = std::function<std::string()>;

  // Listens on `address`, "host:port" or "[v6 host]:port" (port 0: any free one).
  // InvalidArgument for a malformed address, Unavailable if it cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(absl::string_view address,
                                                              Render render);
  ~MetricsServer();  // stops serving and joins the thread

  int port() const { return port_; }

 private:
  MetricsServer() = default;

  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace fedmf::server

#endif  // FEDMF_SERVER_METRICS_SERVER_H_
