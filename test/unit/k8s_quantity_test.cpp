#include "k8s/quantity.hpp"

#include <boost/json/value.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace nvcre::k8s {
namespace {

Quantity q(const std::string& text) {
  auto parsed = Quantity::parse(text);
  if (!parsed) ADD_FAILURE() << "failed to parse " << text;
  return parsed.value_or(Quantity{});
}

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(K8sQuantity, ComparesAcrossSuffixes) {
  EXPECT_GT(q("1Gi"), q("1G"));
  EXPECT_EQ(q("1000m"), q("1"));
  EXPECT_EQ(q("0.5"), q("500m"));
  EXPECT_EQ(q("2Ki"), q("2048"));
  EXPECT_LT(q("128Gi"), q("500Gi"));
  EXPECT_EQ(q("1e3"), q("1k"));
  EXPECT_EQ(q("1E3"), q("1000"));
  EXPECT_EQ(q("1E"), q("1e18"));  // "E" alone is exa, not an exponent
  EXPECT_EQ(q("1.5Gi"), q("1536Mi"));
  EXPECT_LT(q("100m"), q("0.2"));
  EXPECT_LT(q("999999999n"), q("1"));
  EXPECT_GT(q("1n"), q("0"));
  EXPECT_EQ(q("1Mi"), q("1048576"));
  EXPECT_EQ(q("1Ei"), q("1152921504606846976"));
  EXPECT_EQ(q("1u"), q("1000n"));
  EXPECT_EQ(q("1T"), q("1000G"));
  EXPECT_EQ(q("1P"), q("1e15"));
  EXPECT_EQ(q("1e-3"), q("1m"));
  EXPECT_EQ(q("1e+3"), q("1k"));
  EXPECT_EQ(q("007"), q("7"));
}

TEST(K8sQuantity, NegativeValues) {
  EXPECT_TRUE(q("-1").is_negative());
  EXPECT_FALSE(q("1").is_negative());
  EXPECT_FALSE(q("-0").is_negative());
  EXPECT_FALSE(q("+5").is_negative());
  EXPECT_EQ(q("-0"), q("0"));
  EXPECT_LT(q("-1"), q("0"));
  EXPECT_LT(q("-1"), q("-500m"));
  EXPECT_LT(q("-1Gi"), q("-1G"));
  EXPECT_LT(q("-1e100"), q("-1"));
  EXPECT_LT(q("-1"), q("1n"));
  EXPECT_EQ(q("-.5"), q("-500m"));
}

TEST(K8sQuantity, OrderingIsStrong) {
  EXPECT_EQ(q("1Ki") <=> q("1024"), std::strong_ordering::equal);
  EXPECT_EQ(q("1") <=> q("2"), std::strong_ordering::less);
  EXPECT_EQ(q("-1") <=> q("-2"), std::strong_ordering::greater);
  EXPECT_EQ(q("10") <=> q("9"), std::strong_ordering::greater);
  // Same order of magnitude, different exponents.
  EXPECT_EQ(q("1.5") <=> q("1.25"), std::strong_ordering::greater);
  EXPECT_EQ(q("123456789012345678m") <=> q("123456789012345.679"), std::strong_ordering::less);
}

TEST(K8sQuantity, NumberForms) {
  EXPECT_EQ(q("1."), q("1"));
  EXPECT_EQ(q(".5"), q("500m"));
  EXPECT_EQ(q("1.G"), q("1G"));
  EXPECT_EQ(q("+.5Ki"), q("512"));
  EXPECT_EQ(q("0.000"), q("0"));
  EXPECT_TRUE(q("0Gi").is_zero());
}

TEST(K8sQuantity, RejectsWhatKubernetesRejects) {
  for (const char* bad : {"",
                          "1.5.5",
                          "Gi",
                          "1 Gi",
                          "1GB",
                          "1e",
                          "1E+",
                          "1e-",
                          ".",
                          "-",
                          "+",
                          "+-1",
                          "--1",
                          "1K",
                          "1mi",
                          "1ki",
                          "1Ki3",
                          "1e1.5",
                          "1ee3",
                          " 1",
                          "1 ",
                          "0x10",
                          "1,5",
                          "1Gii",
                          "in",
                          "e3",
                          "1i",
                          "1b",
                          "1.5 Gi",
                          "\t1",
                          "1e9223372036854775808",
                          "∞",
                          "1\xC2\xB5"}) {
    EXPECT_FALSE(Quantity::parse(bad).has_value()) << '"' << bad << '"';
    EXPECT_FALSE(is_valid_quantity(bad)) << '"' << bad << '"';
  }
}

TEST(K8sQuantity, AcceptsGrammar) {
  for (const char* good : {"0",    "1",    "-1",    "+1",   "1.",     ".5",
                           "1.5",  "100m", "1n",    "1u",   "1k",     "1M",
                           "1G",   "1T",   "1P",    "1E",   "1Ki",    "1Mi",
                           "1Gi",  "1Ti",  "1Pi",   "1Ei",  "1e3",    "1E3",
                           "1e-3", "1e+3", "1.5e3", "12e0", "-1.5Gi", "1e9223372036854775807"}) {
    EXPECT_TRUE(is_valid_quantity(good)) << good;
    EXPECT_TRUE(Quantity::parse(good).has_value()) << good;
  }
}

TEST(K8sQuantity, Format) {
  EXPECT_EQ(q("1Gi").format(), Quantity::Format::BinarySI);
  EXPECT_EQ(q("1G").format(), Quantity::Format::DecimalSI);
  EXPECT_EQ(q("5").format(), Quantity::Format::DecimalSI);
  EXPECT_EQ(q("1e3").format(), Quantity::Format::DecimalExponent);
  EXPECT_EQ(q("1E").format(), Quantity::Format::DecimalSI);
  EXPECT_EQ(q("0.5Ki").format(), Quantity::Format::BinarySI);      // 512
  EXPECT_EQ(q("0.0001Ki").format(), Quantity::Format::DecimalSI);  // below one: Go switches
}

TEST(K8sQuantity, CanonicalDecimal) {
  EXPECT_EQ(q("0").canonical(), "0");
  EXPECT_EQ(q("-0").canonical(), "0");
  EXPECT_EQ(q("0Gi").canonical(), "0");
  EXPECT_EQ(q("1000m").canonical(), "1");
  EXPECT_EQ(q("0.5").canonical(), "500m");
  EXPECT_EQ(q("1.5").canonical(), "1500m");
  EXPECT_EQ(q("1500").canonical(), "1500");
  EXPECT_EQ(q("1000").canonical(), "1k");
  EXPECT_EQ(q("1500000").canonical(), "1500k");
  EXPECT_EQ(q("2000000000").canonical(), "2G");
  EXPECT_EQ(q("0.1m").canonical(), "100u");
  EXPECT_EQ(q("32").canonical(), "32");
  EXPECT_EQ(q("+32").canonical(), "32");
  EXPECT_EQ(q("-1.5").canonical(), "-1500m");
  EXPECT_EQ(q("1E").canonical(), "1E");
  EXPECT_EQ(q("100E").canonical(), "100E");
  EXPECT_EQ(q("1000E").canonical(), "1e21");  // documented deviation
}

TEST(K8sQuantity, CanonicalBinary) {
  EXPECT_EQ(q("1Ki").canonical(), "1Ki");
  EXPECT_EQ(q("1024Mi").canonical(), "1Gi");
  EXPECT_EQ(q("1.5Gi").canonical(), "1536Mi");
  EXPECT_EQ(q("0.5Gi").canonical(), "512Mi");
  EXPECT_EQ(q("256Gi").canonical(), "256Gi");
  EXPECT_EQ(q("1000000Ki").canonical(), "1000000Ki");
  EXPECT_EQ(q("-1.5Gi").canonical(), "-1536Mi");
  EXPECT_EQ(q("-1Ki").canonical(), "-1Ki");
  // Below 1024 in magnitude, or fractional, binary values print as decimal.
  EXPECT_EQ(q("0.5Ki").canonical(), "512");
  EXPECT_EQ(q("1.5Ki").canonical(), "1536");
  EXPECT_EQ(q("1.0000001Ki").canonical(), "1024000102400n");
  EXPECT_EQ(q("7Ei").canonical(), "7Ei");
}

TEST(K8sQuantity, CanonicalExponent) {
  EXPECT_EQ(q("1e3").canonical(), "1e3");
  EXPECT_EQ(q("12e6").canonical(), "12e6");
  EXPECT_EQ(q("1.5e3").canonical(), "1500");
  EXPECT_EQ(q("1e1").canonical(), "10");
  EXPECT_EQ(q("1e-3").canonical(), "1e-3");
  EXPECT_EQ(q("1e-10").canonical(), "1e-9");   // rounded up to a nano
  EXPECT_EQ(q("1e100").canonical(), "10e99");  // Go also lowers exponents to multiples of 3
  EXPECT_EQ(q("1e-7").canonical(), "100e-9");
}

TEST(K8sQuantity, CanonicalRoundTrips) {
  for (const char* text : {"1536Mi", "500m", "1e3", "100u", "7Ei", "-1Ki", "1500", "12e6"}) {
    EXPECT_EQ(q(text).canonical(), text);
    EXPECT_EQ(q(q(text).canonical()), q(text));
  }
}

TEST(K8sQuantity, RoundsUpToNano) {
  EXPECT_EQ(q("0.0000000001"), q("1n"));
  EXPECT_EQ(q("0.0000000001").canonical(), "1n");
  EXPECT_EQ(q("-0.0000000001").canonical(), "-1n");
  EXPECT_EQ(q("1.0000000001"), q("1.000000001"));
  EXPECT_GT(q("1.0000000001"), q("1"));
  EXPECT_EQ(q("1.0000000001").canonical(), "1000000001n");
  EXPECT_EQ(q("0.1n"), q("1n"));
  EXPECT_EQ(q("1e-1000000"), q("1n"));
  EXPECT_EQ(q("0.0000000000001Ki"), q("1n"));  // 1.024e-10 rounds up too
  EXPECT_EQ(q("0.000000001000000000000000000000000000000000001"), q("2n"));
}

TEST(K8sQuantity, BinaryValuesAreCappedAtInt64Max) {
  const Quantity cap = q("9223372036854775807");
  EXPECT_EQ(q("8Ei"), cap);  // 2^63
  EXPECT_EQ(q("8Ei").canonical(), "9223372036854775807");
  EXPECT_EQ(q("99999999999999999999Ki"), cap);
  EXPECT_EQ(q("10000000000Ei").canonical(), "9223372036854775807");
  EXPECT_FALSE(Quantity::parse("1e30Ki").has_value());  // an exponent and a suffix: no
  EXPECT_EQ(q("-8Ei"), q("-9223372036854775807"));
  EXPECT_LT(q("7Ei"), cap);
  EXPECT_EQ(q("7.99999999999999999999Ei"), cap);
}

TEST(K8sQuantity, DecimalValuesAreExactAndUncapped) {
  // Go caps only binary-suffixed values; decimal ones keep every digit.
  EXPECT_GT(q("9223372036854775808"), q("9223372036854775807"));
  EXPECT_GT(q("10E"), q("9223372036854775807"));
  EXPECT_GT(q("100E"), q("10E"));
  EXPECT_EQ(q("100.0000000000000000E"), q("100E"));
  EXPECT_GT(q("1e100"), q("1e99"));
  EXPECT_GT(q("1e1000000"), q("1e100"));
  const std::string big = "1234567890123456789012345678901234567890";
  EXPECT_GT(q(big), q("1234567890123456789012345678901234567889"));
  EXPECT_LT(q(big), q("1234567890123456789012345678901234567890.000000001"));
  EXPECT_EQ(q(big).canonical(), big);
  EXPECT_EQ(q("-" + big).canonical(), "-" + big);
}

TEST(K8sQuantity, ExponentIsTruncatedToInt32LikeGo) {
  EXPECT_EQ(q("1e4294967296"), q("1"));    // 2^32 -> 0
  EXPECT_EQ(q("1e4294967299"), q("1e3"));  // 2^32+3 -> 3
  EXPECT_EQ(q("1e-9223372036854775808"), q("1"));
}

TEST(K8sQuantity, ValueAndMilliValueRoundAwayFromZero) {
  EXPECT_EQ(q("1.5").value(), 2);
  EXPECT_EQ(q("-1.5").value(), -2);
  EXPECT_EQ(q("2").value(), 2);
  EXPECT_EQ(q("1n").value(), 1);
  EXPECT_EQ(q("1Gi").value(), 1073741824);
  EXPECT_EQ(q("1.5").milli_value(), 1500);
  EXPECT_EQ(q("100m").milli_value(), 100);
  EXPECT_EQ(q("0.1m").milli_value(), 1);
  EXPECT_EQ(q("-0.1m").milli_value(), -1);
  EXPECT_EQ(q("32").milli_value(), 32000);
  EXPECT_EQ(q("0").value(), 0);
  EXPECT_EQ(q("1e100").value(), kMax);
  EXPECT_EQ(q("-1e100").value(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(q("9223372036854775807").milli_value(), kMax);
  EXPECT_EQ(q("9223372036854775807").value(), kMax);
  EXPECT_EQ(q("9223372036854775806").value(), kMax - 1);
  EXPECT_EQ(q("9223372036854775807.5").value(), kMax);  // rounds up, then saturates
  EXPECT_EQ(q("-9223372036854775808").value(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(q("9223372036854775.806").milli_value(), kMax - 1);
  EXPECT_EQ(q("12345678901234567890").value(), kMax);
}

TEST(K8sQuantity, FromJsonIntOrString) {
  EXPECT_EQ(quantity_from_json(boost::json::value("128Gi")), q("128Gi"));
  EXPECT_EQ(quantity_from_json(boost::json::value(32)), q("32"));
  EXPECT_EQ(quantity_from_json(boost::json::value(-3)), q("-3"));
  EXPECT_EQ(quantity_from_json(boost::json::value(std::uint64_t(18446744073709551615u))),
            q("18446744073709551615"));
  EXPECT_EQ(quantity_from_json(boost::json::value(1000.0)), q("1k"));
  EXPECT_FALSE(quantity_from_json(boost::json::value(0.5)).has_value());
  EXPECT_FALSE(quantity_from_json(boost::json::value("1 Gi")).has_value());
  EXPECT_FALSE(quantity_from_json(boost::json::value(true)).has_value());
  EXPECT_FALSE(quantity_from_json(boost::json::value(nullptr)).has_value());
  EXPECT_FALSE(quantity_from_json(boost::json::value(boost::json::array{})).has_value());
}

TEST(K8sQuantity, DefaultIsZero) {
  EXPECT_TRUE(Quantity{}.is_zero());
  EXPECT_EQ(Quantity{}, q("0"));
  EXPECT_EQ(Quantity{}.canonical(), "0");
}

}  // namespace
}  // namespace nvcre::k8s
