#pragma once
// The Certification most manager tests create: one catalog category over kube-sim's GPU nodes,
// in the tests' namespace "it".
#include <boost/json.hpp>

#include <string>

namespace nvcre::testing {

inline boost::json::value one_category_certification(
    const std::string& name, boost::json::object options = {{"nodesPerJob", 4}},
    const std::string& domain = "communication", const std::string& variant = "nccl-all-reduce") {
  namespace json = boost::json;
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Certification"},
      {"metadata", {{"name", name}, {"namespace", "it"}}},
      {"spec",
       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}}},
        {"categories",
         json::array{json::object{
             {"domain", domain}, {"variant", variant}, {"options", std::move(options)}}}}}}};
}

}  // namespace nvcre::testing
