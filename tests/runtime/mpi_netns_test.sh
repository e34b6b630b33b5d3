#!/usr/bin/env bash
# Two "hosts" for the MPI backend: two network namespaces joined by a veth pair, one rank in
# each, talking TCP only (--mca btl tcp,self). Exits 77 (ctest: skipped) with the reason
# when namespaces cannot be made (not root, no ip tool, no CAP_NET_ADMIN in a container).
# usage: mpi_netns_test.sh <mpirun> <axe_mpi_test>
set -u
mpirun=$1
test_binary=$2
skip() { echo "SKIPPED: $*"; exit 77; }
command -v ip >/dev/null 2>&1 || skip "no 'ip' command (iproute2) to make network namespaces"
[[ $(id -u) -eq 0 ]] || skip "making network namespaces needs root"
a=axe_mpi_a_$$ b=axe_mpi_b_$$
cleanup() { ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$a" 2>/dev/null || skip "cannot create a network namespace (ip netns add failed)"
ip netns add "$b" 2>/dev/null || skip "cannot create a second network namespace"
ip link add va$$ netns "$a" type veth peer name vb$$ netns "$b" 2>/dev/null ||
  skip "cannot create a veth pair between the namespaces"
ip -n "$a" addr add 10.251.0.1/24 dev va$$ && ip -n "$a" link set va$$ up &&
  ip -n "$a" link set lo up || skip "cannot configure the first namespace"
ip -n "$b" addr add 10.251.0.2/24 dev vb$$ && ip -n "$b" link set vb$$ up &&
  ip -n "$b" link set lo up || skip "cannot configure the second namespace"
# Reachable: a TCP connect to a closed port of b is refused (not timed out).
probe=$(ip netns exec "$a" timeout 3 bash -c 'exec 3<>/dev/tcp/10.251.0.2/9' 2>&1)
[[ $? -eq 0 || $probe == *refused* ]] || skip "the namespaces cannot reach each other"
# No ssh between the namespaces: one mpirun per side is not possible with OpenMPI 4, so the
# launcher runs in namespace a and starts the rank of namespace b through its agent hook.
agent=$(mktemp)
cat >"$agent" <<AGENT
#!/usr/bin/env bash
# Called by mpirun as ssh would be: <agent> <host> <orted command line as one shell text>;
# the second host is namespace b.
shift
exec ip netns exec $b /bin/sh -c "\$*"
AGENT
chmod +x "$agent"
trap 'cleanup; rm -f "$agent"' EXIT
ip netns exec "$a" "$mpirun" --allow-run-as-root --oversubscribe \
  --host 10.251.0.1:1,10.251.0.2:1 -n 2 \
  --mca plm_rsh_agent "$agent" --mca btl tcp,self --mca oob_tcp_if_include 10.251.0.0/24 \
  --mca btl_tcp_if_include 10.251.0.0/24 \
  "$test_binary"
