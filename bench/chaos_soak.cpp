// The chaos soak: nvcre-manager (two processes electing a leader) against kube-sim under a seeded
// fault plan (5xx, 409, 429, latency, dropped watches, forced 410s), the leader SIGKILLed and
// handed over at seeded moments, Certifications of every kind of work (NCCL multi-node, training
// with checkpoints, diagnose with a faulty node, DCGM) run to their verdicts and then deleted. A
// checker reads kube-sim's request log and final state and reports: expected verdicts reached,
// duplicate creates, objects left, finalizers stuck, writes while not leader, time to quiesce.
// Exit 0 when every correctness property holds; times are printed, never judged.
//   build/bench/nvcre_chaos_soak [--certifications 500] [--seed N]
//   build/bench/nvcre_chaos_soak --leak-cycles 20 [--leak-certifications 200]
#include "bench/chaos_soak.hpp"
#include "bench/manager_bench_process.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  nvcre::soak::SoakSettings s;
  CLI::App app{"nvcre chaos soak: faults, kills and leader handovers; a checker judges the end"};
  app.add_option("--certifications", s.certifications, "Certifications in the soak")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", s.seed, "Seeds the fault plan and the kill moments")
      ->capture_default_str();
  app.add_option("--kills", s.kills, "SIGKILLs of the leader")->capture_default_str();
  app.add_option("--handovers", s.handovers, "SIGTERMs of the leader (it releases the Lease)")
      ->capture_default_str();
  int timeout_minutes = static_cast<int>(s.timeout.count());
  app.add_option("--timeout-minutes", timeout_minutes, "Give up on the run after this long")
      ->capture_default_str();
  app.add_option("--trainer-step-ms", s.trainer_step_ms, "kube-sim's Trainer step")
      ->capture_default_str();
  app.add_option("--manager", s.manager, "The nvcre-manager binary")->capture_default_str();
  app.add_option("--request-log", s.request_log,
                 "Keep kube-sim's request log (JSON lines) in this file");
  app.add_option("--leak-cycles", s.leak_cycles,
                 "Leak mode: this many cycles of creating and deleting Certifications");
  app.add_option("--leak-certifications", s.leak_certifications, "Certifications per leak cycle")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  s.timeout = std::chrono::minutes(timeout_minutes);
  std::signal(SIGINT, nvcre::bench::stop_manager_and_exit);
  std::signal(SIGTERM, nvcre::bench::stop_manager_and_exit);
  std::printf("command:");
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\n");
  try {
    return s.leak_cycles > 0 ? nvcre::soak::run_leak(s) : nvcre::soak::run_soak(s);
  } catch (const std::exception& e) {
    std::cerr << "chaos soak: " << e.what() << "\n";
    return 2;
  }
}
