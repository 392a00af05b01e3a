#include "k8s/packed_text.hpp"

#include <zstd.h>

#include <stdexcept>

namespace nvcre::k8s {
namespace {

// Level 1: the dictionary does most of the work; higher levels cost far more time than they save
// space on texts of a few KiB.
constexpr int kLevel = 1;

struct ContextDeleter {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

ZSTD_CCtx& compression_context() {
  thread_local std::unique_ptr<ZSTD_CCtx, ContextDeleter> context(ZSTD_createCCtx());
  if (!context) throw std::bad_alloc();
  return *context;
}

ZSTD_DCtx& decompression_context() {
  thread_local std::unique_ptr<ZSTD_DCtx, ContextDeleter> context(ZSTD_createDCtx());
  if (!context) throw std::bad_alloc();
  return *context;
}

// Samples one text in kSampleEvery, and renews the dictionary after the first texts (so a kind's
// first objects soon have one) and then rarely (each renewal leaves the previous dictionary alive
// for as long as a text packed with it is).
constexpr std::uint64_t kSampleEvery = 16;
bool renews_after(std::uint64_t packed) {
  return packed == 1 || packed == 16 || packed == 128 || packed == 1024 || packed % 8192 == 0;
}

}  // namespace

struct TextPacker::Compressor {
  explicit Compressor(const std::string& content)
      : dictionary(ZSTD_createCDict(content.data(), content.size(), kLevel)) {
    if (dictionary == nullptr) throw std::bad_alloc();
  }
  ~Compressor() { ZSTD_freeCDict(dictionary); }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  ZSTD_CDict* dictionary;
};

TextPacker::TextPacker() = default;
TextPacker::~TextPacker() = default;
TextPacker::TextPacker(const TextPacker& other) = default;
TextPacker& TextPacker::operator=(const TextPacker& other) = default;
TextPacker::TextPacker(TextPacker&&) noexcept = default;
TextPacker& TextPacker::operator=(TextPacker&&) noexcept = default;

void TextPacker::renew_dictionary() {
  auto dictionary = std::make_shared<std::string>();
  for (const auto& sample : samples_) dictionary->append(sample);
  compressor_ = std::make_shared<const Compressor>(*dictionary);
  dictionary_ = std::move(dictionary);
  ++dictionaries_made_;
}

PackedText TextPacker::pack(std::string_view text) {
  if (packed_ % kSampleEvery == 0) {
    if (samples_.size() == kSamples) samples_.erase(samples_.begin());
    samples_.emplace_back(text.substr(0, kSampleBytes));
  }
  ++packed_;
  if (renews_after(packed_)) renew_dictionary();
  PackedText out;
  out.size = static_cast<std::uint32_t>(text.size());
  out.dictionary = dictionary_;
  thread_local std::string frame;  // grows to the largest bound once, then is reused
  if (frame.size() < ZSTD_compressBound(text.size())) frame.resize(ZSTD_compressBound(text.size()));
  const std::size_t written =
      ZSTD_compress_usingCDict(&compression_context(), frame.data(), frame.size(), text.data(),
                               text.size(), compressor_->dictionary);
  if (ZSTD_isError(written))
    throw std::runtime_error(std::string("packing a cached object's text: ") +
                             ZSTD_getErrorName(written));
  out.bytes.assign(frame.data(), written);  // exactly its size
  return out;
}

std::string_view unpack(const PackedText& packed) {
  if (!packed.dictionary) return packed.bytes;
  thread_local std::string buffer;
  buffer.resize(packed.size);
  const std::size_t read = ZSTD_decompress_usingDict(
      &decompression_context(), buffer.data(), buffer.size(), packed.bytes.data(),
      packed.bytes.size(), packed.dictionary->data(), packed.dictionary->size());
  if (ZSTD_isError(read) || read != packed.size) {
    // Only corrupted memory gets here: the reconcile fails and is retried; the cache is rebuilt
    // by restarting the manager.
    throw std::runtime_error(std::string("a cached object's text does not decompress (") +
                             (ZSTD_isError(read) ? ZSTD_getErrorName(read) : "wrong size") +
                             "): the informer cache is corrupt; restart the manager to rebuild it");
  }
  return buffer;
}

}  // namespace nvcre::k8s
