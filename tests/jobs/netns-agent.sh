#!/usr/bin/env bash
# Open MPI's remote-shell agent for hosts that are network namespaces on this
# machine: `netns-agent.sh HOST COMMAND...` behaves like `ssh HOST COMMAND...`
# (the words joined and run by a shell), but enters HOST's namespace with
# `ip netns exec` and gives it its own hostname in a private UTS namespace, so
# MPI_Get_processor_name tells the hosts apart.
#
# TPB_NETNS_HOSTS maps addresses to namespaces and hostnames:
#   "198.18.0.1=ns-a=node-a 198.18.0.2=ns-b=node-b"
set -euo pipefail
host=$1
shift
for entry in ${TPB_NETNS_HOSTS:?netns-agent.sh: TPB_NETNS_HOSTS is not set}; do
  IFS="=" read -r address namespace hostname <<<"$entry"
  if [ "$host" = "$address" ] || [ "$host" = "$hostname" ]; then
    exec ip netns exec "$namespace" unshare --uts /bin/sh -c "hostname '$hostname' && $*"
  fi
done
echo "netns-agent.sh: unknown host '$host' (known: $TPB_NETNS_HOSTS)" >&2
exit 255
