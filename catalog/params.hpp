#pragma once
// Internal: expansion parameters and parallelism rules of the catalog build.
#include "catalog/catalog.hpp"

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace nvcre::catalog::detail {

// Typed parameters visible to entries (names documented in catalog/entries/README.md), allocated
// from `storage` (build() passes the arena of its expansion).
boost::json::object build_params(const CategoryKey& key, const EntryMeta& meta,
                                 const BuildConfig& config, boost::json::storage_ptr storage = {});

std::string effective_timeout(std::string_view user_value, std::string_view meta_value,
                              std::string_view test_scale);

bool nodes_satisfy(const EntryMeta& meta, std::int32_t nodes, std::int32_t gpus_per_node,
                   std::string_view config_arch_key);

// Throws CatalogError with the reference texts; skipped when nodes or gpus are <= 0.
void check_parallelism(const CategoryKey& key, const EntryMeta& meta, std::int32_t nodes,
                       std::int32_t gpus, std::string_view config_arch_key);

}  // namespace nvcre::catalog::detail
