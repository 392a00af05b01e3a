#pragma once
// A throwaway PKI made once per test binary run with the openssl CLI (EC P-256 keys: fast to
// generate): a CA, a server certificate for 127.0.0.1 + localhost, one for "other.example" only,
// an unrelated CA, and client certificates signed by each CA. Shared by the TLS tests and the
// tests that check no private key ever reaches a message.
#include "kubectl_support.hpp"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nvcre::testing {

namespace fs = std::filesystem;
using sim::testing::run_shell;

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string base64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    for (std::size_t k = 0; k < 4; ++k)
      out += i + k <= bytes.size() ? alphabet[(n >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// The throwaway PKI, made once per test binary run (EC P-256 keys: fast to generate).
class Pki {
 public:
  static const Pki& get() {
    static const Pki pki;
    return pki;
  }
  ~Pki() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string pem(const std::string& name) const { return read_text(dir_ / name); }
  // A line from the middle of a private key: must never show up in any message.
  std::string key_fragment(const std::string& name) const {
    std::istringstream lines(pem(name));
    std::string line;
    std::getline(lines, line);  // -----BEGIN ...
    std::getline(lines, line);
    return line.substr(0, 24);
  }

 private:
  Pki() {
    dir_ = fs::temp_directory_path() / ("nvcre-tls-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "ca.ext")
        << "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
           "subjectKeyIdentifier=hash\n";
    const std::string leaf =
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n";
    std::ofstream(dir_ / "server.ext")
        << leaf << "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n";
    std::ofstream(dir_ / "other.ext")
        << leaf << "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:other.example\n";
    std::ofstream(dir_ / "client.ext") << leaf << "extendedKeyUsage=clientAuth\n";
    std::string script = "set -e; cd '" + dir_.string() + "'\n";
    auto key = [](const std::string& name) {
      return "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out " + name +
             ".key\n";
    };
    auto ca = [&](const std::string& name) {
      return key(name) + "openssl req -new -key " + name + ".key -subj /CN=" + name + " -out " +
             name + ".csr\n" + "openssl x509 -req -in " + name + ".csr -signkey " + name +
             ".key -days 2 -extfile ca.ext -out " + name + ".crt\n";
    };
    auto signed_by = [&](const std::string& name, const std::string& subject,
                         const std::string& issuer, const std::string& ext) {
      return key(name) + "openssl req -new -key " + name + ".key -subj " + subject + " -out " +
             name + ".csr\n" + "openssl x509 -req -in " + name + ".csr -CA " + issuer +
             ".crt -CAkey " + issuer + ".key -CAcreateserial -days 2 -extfile " + ext + " -out " +
             name + ".crt\n";
    };
    script += ca("ca") + ca("wrong-ca");
    script += signed_by("server", "/CN=kube-sim", "ca", "server.ext");
    script += signed_by("other", "/CN=other.example", "ca", "other.ext");
    script += signed_by("client", "/O=system:masters/CN=nvcre-test", "ca", "client.ext");
    script += signed_by("rogue-client", "/CN=rogue", "wrong-ca", "client.ext");
    std::ofstream(dir_ / "make.sh") << script;
    auto result = run_shell("sh '" + (dir_ / "make.sh").string() + "'");
    if (result.exit_code != 0) throw std::runtime_error("openssl failed: " + result.output);
  }
  fs::path dir_;
};

}  // namespace nvcre::testing
