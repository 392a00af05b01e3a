#pragma once
// A self-signed serving certificate made in memory at start (never written to disk: the manager's
// root filesystem is read-only), for --metrics-secure without --metrics-cert-path, as
// controller-runtime does. Scrapers of such an endpoint skip verification or pin the certificate.
#include <string>
#include <vector>

namespace nvcre::manager {

struct PemKeyPair {
  std::string certificate;  // PEM
  std::string private_key;  // PEM (secret)
};

// An EC P-256 key and a certificate for `dns_names` and `ip_addresses` (subjectAltName), valid
// from an hour ago for a year. Throws std::runtime_error when OpenSSL fails.
PemKeyPair make_self_signed(const std::string& common_name,
                            const std::vector<std::string>& dns_names,
                            const std::vector<std::string>& ip_addresses);

}  // namespace nvcre::manager
