// Cached object text packed against its kind's dictionary: every text comes back byte for byte,
// texts like the ones before them pack to a fraction of their size, and the dictionary is renewed
// now and then, not per text.
#include "k8s/cached_object.hpp"
#include "k8s/packed_text.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

// A Pod-like object: the same shape for every index, names and a few values differing.
std::string pod_text(int index) {
  const std::string name = "bench-" + std::to_string(index) + "-worker";
  json::object pod{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "bench"},
        {"uid", "uid-" + std::to_string(index * 7919)},
        {"labels", {{"jobset.sigs.k8s.io/jobset-name", name}, {"nvcre.nvidia.com/job", name}}}}},
      {"spec",
       {{"nodeName", "node-" + std::to_string(index % 97)},
        {"containers",
         json::array{json::object{
             {"name", "node"},
             {"image", "nvcr.io/nvidia/pytorch:25.01-py3"},
             {"env", json::array{json::object{{"name", "NCCL_DEBUG"}, {"value", "INFO"}},
                                 json::object{{"name", "NCCL_IB_HCA"}, {"value", "mlx5"}},
                                 json::object{{"name", "RANK"}, {"value", std::to_string(index)}}}},
             {"resources", {{"limits", {{"nvidia.com/gpu", 8}}}}}}}}}},
      {"status", {{"phase", index % 3 == 0 ? "Pending" : "Running"}}}};
  return json::serialize(pod);
}

TEST(TextPacker, EveryTextComesBackAsItWas) {
  TextPacker packer;
  std::vector<PackedText> packed;
  std::vector<std::string> texts;
  for (int i = 0; i < 300; ++i) {
    texts.push_back(i % 50 == 7 ? std::string() : pod_text(i));
    packed.push_back(packer.pack(texts.back()));
  }
  // Read back after every later renewal of the dictionary: each keeps the one it was packed with.
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(unpack(packed[i]), texts[i]) << i;
}

TEST(TextPacker, TextsLikeTheOnesBeforeThemPackToAFractionOfTheirSize) {
  TextPacker packer;
  std::size_t text_bytes = 0;
  std::size_t packed_bytes = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string text = pod_text(i);
    const PackedText packed = packer.pack(text);
    if (i < 20) continue;  // the dictionary's first samples
    text_bytes += text.size();
    packed_bytes += packed.bytes.size();
  }
  EXPECT_LT(packed_bytes * 4, text_bytes) << packed_bytes << " of " << text_bytes;
}

TEST(TextPacker, TheDictionaryIsRenewedNowAndThenNotPerText) {
  TextPacker packer;
  for (int i = 0; i < 5000; ++i) packer.pack(pod_text(i));
  EXPECT_GE(packer.dictionaries_made(), 2u);
  EXPECT_LE(packer.dictionaries_made(), 6u);
}

TEST(TextPacker, ACorruptFrameThrowsInsteadOfReturningGarbage) {
  TextPacker packer;
  PackedText packed = packer.pack(pod_text(1));
  packed.bytes[packed.bytes.size() / 2] ^= 0x5a;
  packed.bytes.resize(packed.bytes.size() - 3);
  EXPECT_THROW(unpack(packed), std::runtime_error);
}

TEST(CachedObjectPacked, ParsesAndFindsTextAsTheUnpackedFormDoes) {
  TextPacker packer;
  const json::value object = json::parse(pod_text(42));
  const CachedObject packed(object, CachedObject::Form::Text, {"/spec/nodeName"}, &packer);
  const CachedObject plain(object, CachedObject::Form::Text, {"/spec/nodeName"});
  EXPECT_EQ(packed.parse(), object);
  EXPECT_EQ(plain.parse(), object);
  EXPECT_EQ(packed.field(0), "node-42");
  EXPECT_TRUE(packed.mentions("bench-42-worker"));
  EXPECT_FALSE(packed.mentions("bench-43-worker"));
}

}  // namespace
}  // namespace nvcre::k8s
