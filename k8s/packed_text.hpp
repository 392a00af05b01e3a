#pragma once
// Cached object text, compressed. Objects of one kind repeat each other's keys and most values (a
// Pod's spec is its siblings', a Job's template its neighbours'), but one small object alone gives
// a compressor little to match. So each kind's texts are compressed (zstd) against a dictionary
// made of a few texts of that kind seen before (raw content: no training step), and take a
// fraction of their size. A TextPacker per kind samples the texts it packs and renews its
// dictionary now and then, so the dictionary follows what the kind's objects look like; a packed
// text keeps the dictionary it was packed with alive (they are shared and small).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

struct PackedText {
  std::string bytes;  // zstd frame, or the text itself when `dictionary` is null
  std::uint32_t size = 0;
  std::shared_ptr<const std::string> dictionary;
};

// The text a PackedText holds. Decompresses into a buffer owned by the calling thread, valid
// until that thread's next call; throws std::runtime_error on a corrupt frame.
std::string_view unpack(const PackedText& packed);

class TextPacker {
 public:
  TextPacker();
  ~TextPacker();
  TextPacker(const TextPacker& other);
  TextPacker& operator=(const TextPacker& other);
  TextPacker(TextPacker&&) noexcept;
  TextPacker& operator=(TextPacker&&) noexcept;

  PackedText pack(std::string_view text);
  // How many dictionaries this packer has made (tests: the dictionary is renewed, not per text).
  std::uint64_t dictionaries_made() const { return dictionaries_made_; }

  // The dictionary holds the last kSamples sampled texts, each cut to kSampleBytes.
  static constexpr std::size_t kSamples = 4;
  static constexpr std::size_t kSampleBytes = 8192;

 private:
  void renew_dictionary();

  struct Compressor;  // the zstd dictionary prepared for compression, shared by copies
  std::vector<std::string> samples_;  // oldest first
  std::shared_ptr<const std::string> dictionary_;
  std::shared_ptr<const Compressor> compressor_;
  std::uint64_t packed_ = 0;
  std::uint64_t dictionaries_made_ = 0;
};

}  // namespace nvcre::k8s
