#include "server/prometheus_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace fedmf::server {
namespace {

// HELP text escapes backslash and newline; label values also the double quote.
std::string Escape(absl::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[32];  // the shortest form that round-trips (absl::StrCat keeps 6 digits only)
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, r.ptr);
}

void AppendLabels(std::string& out, const MetricLabels& labels) {
  if (labels.empty()) return;
  out += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, labels[i].first, "=\"", Escape(labels[i].second, true), "\"");
  }
  out += '}';
}

}  // namespace

void PrometheusText::Family(absl::string_view name, absl::string_view type,
                            absl::string_view help) {
  absl::StrAppend(&text_, "# HELP ", name, " ", Escape(help, false), "\n# TYPE ", name, " ", type,
                  "\n");
}

void PrometheusText::Sample(absl::string_view name, double value, const MetricLabels& labels) {
  text_.append(name.data(), name.size());
  AppendLabels(text_, labels);
  absl::StrAppend(&text_, " ", Number(value), "\n");
}

void PrometheusText::Histogram(absl::string_view name, const HistogramSnapshot& histogram,
                               const MetricLabels& labels) {
  const std::string bucket = absl::StrCat(name, "_bucket");
  for (size_t i = 0; i < histogram.bounds.size(); ++i) {
    MetricLabels with_le = labels;
    with_le.emplace_back("le", Number(histogram.bounds[i]));
    Sample(bucket, static_cast<double>(histogram.buckets[i]), with_le);
  }
  MetricLabels with_inf = labels;
  with_inf.emplace_back("le", "+Inf");
  Sample(bucket, static_cast<double>(histogram.count), with_inf);
  Sample(absl::StrCat(name, "_sum"), histogram.sum, labels);
  Sample(absl::StrCat(name, "_count"), static_cast<double>(histogram.count), labels);
}

}  // namespace fedmf::server
