#pragma once
// The message of the exception a call throws, for tests that pin error texts.
#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <utility>

namespace nvcre::test {

// what() of the E that `fn` throws; fails the test (and returns "") when it throws nothing.
template <class E = std::exception, class Fn>
std::string message_thrown(Fn&& fn) {
  try {
    std::forward<Fn>(fn)();
  } catch (const E& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an exception, none was thrown";
  return {};
}

}  // namespace nvcre::test
