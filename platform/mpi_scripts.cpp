#include "platform/mpi_scripts.hpp"

namespace nvcre::platform::mpi {

std::string worker_sshd_script() {
  return "set -x"
         " && (test -x /usr/sbin/sshd || (apt-get update && apt-get install -y "
         "--no-install-recommends openssh-server))"
         " && mkdir -p -m 0755 /var/run/sshd"
         " && mkdir -p -m 700 /root/.ssh"
         " && cp /tmp/mpi-ssh-raw/* /root/.ssh/"
         " && chmod 600 /root/.ssh/id_rsa"
         " && chmod 644 /root/.ssh/id_rsa.pub /root/.ssh/authorized_keys"
         " && exec /usr/sbin/sshd -De";
}

std::string fix_ssh_permissions_script() {
  return "set -e -x\n"
         "cp /tmp/mpi-ssh-raw/* /root/.ssh/\n"
         "chmod 600 /root/.ssh/id_rsa\n"
         "chmod 644 /root/.ssh/id_rsa.pub /root/.ssh/authorized_keys\n";
}

// Written to run both standalone and appended after fix_ssh_permissions_script (under `set -e`):
// every command that may fail sits in a condition.
std::string wait_for_workers_script() {
  return R"(# wait-for-workers: KAI admits launcher and workers together, so wait for every worker's sshd here.
if [ ! -f /root/.ssh/id_rsa ]; then
  mkdir -p /root/.ssh
  cp /tmp/mpi-ssh-raw/* /root/.ssh/
  chmod 600 /root/.ssh/id_rsa
fi
if [ -f /etc/mpi/hostfile ]; then
  hosts=$(awk 'NF { print $1 }' /etc/mpi/hostfile)
else
  hosts=""
fi
if [ -z "$hosts" ]; then
  echo "wait-for-workers: /etc/mpi/hostfile is missing or lists no hosts; the Trainer MPI plugin writes it, so the runtime is not an MPI runtime or the plugin is not running" >&2
  exit 1
fi
self=$(hostname)
self=${self%%.*}
start=$(date +%s)
round=0
while [ "$round" -lt 240 ]; do
  round=$((round + 1))
  waiting=""
  for host in $hosts; do
    if [ "${host%%.*}" = "$self" ]; then
      continue
    fi
    if ! output=$(timeout 10 ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 "$host" true 2>&1); then
      waiting="$host"
      if [ $((round % 10)) -eq 0 ]; then
        echo "wait-for-workers: round $round/240: $host does not answer ssh yet:"
        printf '%s\n' "$output" | head -n 3
      fi
      break
    fi
  done
  if [ -z "$waiting" ]; then
    echo "wait-for-workers: every worker answers ssh after $(( $(date +%s) - start ))s"
    exit 0
  fi
  sleep 5
done
echo "wait-for-workers: workers did not answer ssh within 20 minutes; hostfile:" >&2
cat /etc/mpi/hostfile >&2
echo "wait-for-workers: check that no NetworkPolicy blocks port 22 between launcher and worker pods" >&2
exit 1
)";
}

}  // namespace nvcre::platform::mpi
