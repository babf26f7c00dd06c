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

// Which positions of `order` the node at `from` reaches (itself included):
// a member may join a group only if it reaches no member and none reaches it.
std::vector<char> reached_from(const std::vector<const ir::Node*>& order,
                               const std::unordered_map<const ir::Node*, size_t>& pos,
                               size_t from) {
  std::vector<char> r(order.size(), 0);
  r[from] = 1;
  for (size_t i = from + 1; i < order.size(); ++i)
    for (const ir::Node* o : order[i]->operands())
      if (r[pos.at(o)]) {
        r[i] = 1;
        break;
      }
  return r;
}

} // namespace

size_t max_contract_group(int vector_bits) {
  return vector_bits >= 512 ? 4 : 3;
}

std::vector<std::vector<const ir::Node*>>
find_contract_groups(const std::vector<const ir::Node*>& order,
                     const std::function<GroupCandidate(const ir::Node*)>& candidate,
                     size_t max_group) {
  // Candidates' positions in `order`, bucketed by key in order of first
  // appearance.
  std::map<std::string, std::vector<size_t>> buckets;
  std::vector<std::string> first_seen;
  for (size_t i = 0; i < order.size(); ++i) {
    GroupCandidate c = candidate(order[i]);
    if (!c.eligible) continue;
    auto [it, fresh] = buckets.try_emplace(group_key(order[i], c));
    if (fresh) first_seen.push_back(it->first);
    it->second.push_back(i);
  }

  std::unordered_map<const ir::Node*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i)
    pos[order[i]] = i;
  std::unordered_map<size_t, std::vector<char>> reach; // position -> what it reaches
  auto independent = [&](size_t a, size_t b) { return !reach.at(a)[b] && !reach.at(b)[a]; };

  // Greedy, in order: each member joins the first open group of its bucket
  // it is independent of.
  std::vector<std::vector<const ir::Node*>> groups;
  for (const std::string& key : first_seen) {
    const std::vector<size_t>& bucket = buckets.at(key);
    if (bucket.size() < 2) continue;
    for (size_t p : bucket)
      reach.emplace(p, reached_from(order, pos, p));
    std::vector<std::vector<size_t>> open;
    for (size_t p : bucket) {
      auto fits = [&](const std::vector<size_t>& g) {
        return g.size() < max_group &&
               std::all_of(g.begin(), g.end(), [&](size_t m) { return independent(p, m); });
      };
      auto g = std::find_if(open.begin(), open.end(), fits);
      if (g != open.end())
        g->push_back(p);
      else
        open.push_back({p});
    }
    for (const std::vector<size_t>& g : open) {
      if (g.size() < 2) continue;
      std::vector<const ir::Node*> members;
      members.reserve(g.size());
      for (size_t p : g)
        members.push_back(order[p]);
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
