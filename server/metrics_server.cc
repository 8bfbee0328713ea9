#include "server/metrics_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/prometheus_text.h"

namespace fedmf::server {
namespace {

struct HostPort {
  std::string host;
  int port = 0;
};

absl::StatusOr<HostPort> ParseAddress(absl::string_view address) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address '", address, "': expected host:port (port 0 to 65535)"));
  }
  absl::string_view host = address.substr(0, colon);
  if (absl::ConsumePrefix(&host, "[") && !absl::ConsumeSuffix(&host, "]")) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address '", address, "': unclosed '[' around an IPv6 host"));
  }
  if (host.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address '", address, "': no host (e.g. 0.0.0.0:9090)"));
  }
  return HostPort{std::string(host), port};
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(absl::string_view address,
                                                                    Render render) {
  absl::StatusOr<HostPort> where = ParseAddress(address);
  if (!where.ok()) return where.status();
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->http_ = std::make_unique<httplib::Server>();
  httplib::Server& http = *server->http_;
  // A scrape is one small GET: two workers, short timeouts, no request body.
  http.new_task_queue = [] { return new httplib::ThreadPool(2); };
  http.set_read_timeout(std::chrono::seconds(5));
  http.set_write_timeout(std::chrono::seconds(5));
  http.set_payload_max_length(0);
  // SO_REUSEADDR only: the library's default also sets SO_REUSEPORT, with which a second
  // coordinator would silently share (and split) the scrape port instead of being refused.
  http.set_socket_options([](int socket) {
    const int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  http.Get("/metrics",
           [render = std::move(render)](const httplib::Request&, httplib::Response& response) {
             response.set_content(render(), kPrometheusContentType);
           });
  http.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.status == 404) response.set_content("only /metrics is served\n", "text/plain");
  });
  server->port_ = where->port == 0
                      ? http.bind_to_any_port(where->host)
                      : (http.bind_to_port(where->host, where->port) ? where->port : -1);
  if (server->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for metrics on ", address));
  }
  server->thread_ = std::thread([s = server.get()] {
    s->http_->listen_after_bind();
    s->listen_returned_.store(true);
  });
  return server;
}

MetricsServer::~MetricsServer() {
  if (!thread_.joinable()) return;  // Start failed before serving
  // stop() is a no-op until the server runs: wait for it to start (or to have failed).
  while (!http_->is_running() && !listen_returned_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  http_->stop();
  thread_.join();
}

}  // namespace fedmf::server
