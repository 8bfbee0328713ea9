#include "server/status_board.h"

#include <string>

namespace fedmf::server {

void StatusBoard::Update(const std::function<void(Snapshot&)>& edit) {
  auto next = std::make_shared<Snapshot>(*current_.load());
  edit(*next);
  current_.store(std::move(next));
}

void StatusBoard::SetStage(const std::string& stage) {
  Update([&stage](Snapshot& s) { s.status.set_stage(stage); });
}

}  // namespace fedmf::server
