#include "manager/self_signed.hpp"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace nvcre::manager {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("self-signed metrics certificate: ") + what);
}

std::string pem_of(const std::function<int(BIO*)>& write) {
  Bio bio(BIO_new(BIO_s_mem()));
  check(bio != nullptr && write(bio.get()) == 1, "PEM encoding failed");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

PemKeyPair make_self_signed(const std::string& common_name,
                            const std::vector<std::string>& dns_names,
                            const std::vector<std::string>& ip_addresses) {
  Key key(EVP_EC_gen("P-256"));
  check(key != nullptr, "key generation failed");
  Cert cert(X509_new());
  check(cert != nullptr && X509_set_version(cert.get(), 2) == 1, "X509_new failed");
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial) == 1, "no randomness for the serial");
  serial[0] &= 0x7f;  // a positive serial number
  std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> number(
      BN_bin2bn(serial, sizeof serial, nullptr));
  check(number && BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(cert.get())) != nullptr,
        "serial number");
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), name);
  check(X509_set_pubkey(cert.get(), key.get()) == 1, "X509_set_pubkey failed");
  std::string alt_names;
  for (const auto& dns : dns_names) alt_names += (alt_names.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : ip_addresses) alt_names += (alt_names.empty() ? "IP:" : ",IP:") + ip;
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert.get(), cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] :
       {std::pair{NID_subject_alt_name, alt_names},
        std::pair{NID_key_usage, std::string("critical,digitalSignature")},
        std::pair{NID_ext_key_usage, std::string("serverAuth")}}) {
    if (value.empty()) continue;
    Extension extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
    check(extension != nullptr && X509_add_ext(cert.get(), extension.get(), -1) == 1,
          "certificate extension");
  }
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "signing failed");
  return {pem_of([&](BIO* bio) { return PEM_write_bio_X509(bio, cert.get()); }),
          pem_of([&](BIO* bio) {
            return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
          })};
}

}  // namespace nvcre::manager
