// Finding the contractions that can share one pass over their streamed
// operand, and the emission order that keeps each such group together
// (contract_groups.h). Both are plain graph passes over the live DAG.
#include "compiler/loopgen/contract_groups.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace plastic::loopgen {
namespace {

// Nodes that cannot share a nest share no key: the einsum, every operand's
// shape, the streamed node and its place, lanes and region must agree.
std::string group_key(const ir::Node* n, const GroupCandidate& c) {
  std::string key =
      fmt::format("{}|{}|{}|{}|{}", n->attrs().str, static_cast<const void*>(c.streamed),
                  c.streamed_index, c.uniform, c.region);
  for (const ir::Node* o : n->operands())
    key += "|" + ir::shape_str(o->shape());
  return key;
}

// Which nodes of `order` each candidate reaches (itself included), as a
// flag per position: a member may join a group only if it reaches no
// member and none reaches it.
std::vector<std::vector<char>> reach_of(const std::vector<const ir::Node*>& order,
                                        const std::vector<size_t>& candidates) {
  std::unordered_map<const ir::Node*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i)
    pos[order[i]] = i;
  std::vector<std::vector<char>> reach;
  for (size_t from : candidates) {
    std::vector<char> r(order.size(), 0);
    r[from] = 1;
    for (size_t i = from + 1; i < order.size(); ++i)
      for (const ir::Node* o : order[i]->operands())
        if (r[pos.at(o)]) {
          r[i] = 1;
          break;
        }
    reach.push_back(std::move(r));
  }
  return reach;
}

} // namespace

std::vector<std::vector<const ir::Node*>>
find_contract_groups(const std::vector<const ir::Node*>& order,
                     const std::function<GroupCandidate(const ir::Node*)>& candidate) {
  // Candidates, bucketed by key in order of first appearance.
  std::vector<size_t> positions;
  std::map<std::string, std::vector<size_t>> buckets; // key -> indices into positions
  std::vector<std::string> first_seen;
  for (size_t i = 0; i < order.size(); ++i) {
    GroupCandidate c = candidate(order[i]);
    if (!c.eligible) continue;
    std::string key = group_key(order[i], c);
    auto [it, fresh] = buckets.try_emplace(key);
    if (fresh) first_seen.push_back(key);
    it->second.push_back(positions.size());
    positions.push_back(i);
  }
  std::vector<size_t> shared;
  for (const std::string& key : first_seen)
    if (buckets[key].size() > 1)
      for (size_t k : buckets[key])
        shared.push_back(k);
  if (shared.empty()) return {};

  std::vector<size_t> shared_positions;
  shared_positions.reserve(shared.size());
  for (size_t k : shared)
    shared_positions.push_back(positions[k]);
  const std::vector<std::vector<char>> reach = reach_of(order, shared_positions);
  std::unordered_map<size_t, size_t> reach_index; // candidate index -> row of reach
  for (size_t r = 0; r < shared.size(); ++r)
    reach_index[shared[r]] = r;
  auto independent = [&](size_t a, size_t b) {
    return !reach[reach_index.at(a)][positions[b]] && !reach[reach_index.at(b)][positions[a]];
  };

  // Greedy, in order: each member joins the first open group of its bucket
  // it is independent of.
  std::vector<std::vector<const ir::Node*>> groups;
  for (const std::string& key : first_seen) {
    const std::vector<size_t>& bucket = buckets[key];
    if (bucket.size() < 2) continue;
    std::vector<std::vector<size_t>> open;
    for (size_t k : bucket) {
      auto fits = [&](const std::vector<size_t>& g) {
        return g.size() < kMaxContractGroup &&
               std::all_of(g.begin(), g.end(), [&](size_t m) { return independent(k, m); });
      };
      auto g = std::find_if(open.begin(), open.end(), fits);
      if (g != open.end())
        g->push_back(k);
      else
        open.push_back({k});
    }
    for (const std::vector<size_t>& g : open) {
      if (g.size() < 2) continue;
      std::vector<const ir::Node*> members;
      members.reserve(g.size());
      for (size_t k : g)
        members.push_back(order[positions[k]]);
      groups.push_back(std::move(members));
    }
  }
  return groups;
}

std::optional<std::vector<const ir::Node*>>
order_with_groups(const std::vector<const ir::Node*>& order,
                  const std::vector<std::vector<const ir::Node*>>& groups) {
  // Units: a group, or a node on its own. Kahn's algorithm over units,
  // always taking the ready unit that came first in `order`.
  std::unordered_map<const ir::Node*, size_t> unit;
  std::vector<std::vector<const ir::Node*>> members;
  for (const auto& g : groups) {
    for (const ir::Node* n : g)
      unit[n] = members.size();
    members.push_back(g);
  }
  std::vector<size_t> first(members.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    auto [it, fresh] = unit.try_emplace(order[i], members.size());
    if (fresh) {
      members.push_back({order[i]});
      first.push_back(i);
    } else {
      first[it->second] = std::min(first[it->second], i);
    }
  }
  std::vector<int> waiting(members.size(), 0);
  std::vector<std::vector<size_t>> consumers(members.size());
  for (const ir::Node* n : order)
    for (const ir::Node* o : n->operands()) {
      size_t from = unit.at(o), to = unit.at(n);
      if (from == to) continue;
      consumers[from].push_back(to);
      ++waiting[to];
    }
  using Ready = std::pair<size_t, size_t>; // (first position, unit)
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  for (size_t u = 0; u < members.size(); ++u)
    if (waiting[u] == 0) ready.emplace(first[u], u);
  std::vector<const ir::Node*> out;
  out.reserve(order.size());
  while (!ready.empty()) {
    size_t u = ready.top().second;
    ready.pop();
    out.insert(out.end(), members[u].begin(), members[u].end());
    for (size_t c : consumers[u])
      if (--waiting[c] == 0) ready.emplace(first[c], c);
  }
  if (out.size() != order.size()) return std::nullopt; // a cycle through groups
  return out;
}

} // namespace plastic::loopgen
