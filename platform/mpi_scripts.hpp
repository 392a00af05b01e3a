#pragma once
// Shell snippets and fixed names of the MPI TrainingRuntime shape, shared by the runtime builder
// and the gang-scheduling rewrite so both produce the same containers.
#include <string>
#include <string_view>

namespace nvcre::platform::mpi {

inline constexpr std::string_view kSshAuthVolume =
    "mpi-ssh-auth";  // injected by Trainer's MPI plugin
inline constexpr std::string_view kSshAuthMountPath = "/tmp/mpi-ssh-raw";
inline constexpr std::string_view kSshKeysVolume = "ssh-keys";  // launcher emptyDir
inline constexpr std::string_view kSshKeysMountPath = "/root/.ssh";
inline constexpr std::string_view kHostfileVolume =
    "mpi-hostfile";  // injected by Trainer's MPI plugin
inline constexpr std::string_view kHostfileDir = "/etc/mpi";
inline constexpr std::string_view kHostfilePath = "/etc/mpi/hostfile";
inline constexpr std::string_view kWorkerJob = "node";
inline constexpr std::string_view kLauncherJob = "launcher";
inline constexpr std::string_view kFixSshPermissionsContainer = "fix-ssh-permissions";
inline constexpr std::string_view kWaitForWorkersContainer = "wait-for-workers";

// Worker entrypoint: one `&&` chain that installs openssh-server only when sshd is missing, lays
// the Trainer-provided keys into /root/.ssh with the modes sshd insists on, and execs
// `/usr/sbin/sshd -De` so sshd is PID 1's child of record and its exit ends the container.
std::string worker_sshd_script();

// Launcher init container `fix-ssh-permissions`: copy the read-only keys into the writable
// ssh-keys emptyDir and fix their modes.
std::string fix_ssh_permissions_script();

// Under KAI the launcher cannot be gated on worker readiness (an empty gated sub-group blocks the
// gang), so it waits itself: ssh-probe every host of the MPI hostfile except its own, every 5 s
// for up to 240 rounds (20 min), reporting progress every 10 rounds and failing with the hostfile
// and a NetworkPolicy hint on timeout.
std::string wait_for_workers_script();

}  // namespace nvcre::platform::mpi
