#!/usr/bin/env bash
# fake-rke.sh: a harmless stand-in for Rancher's rke, for trying the cluster-provisioner and for its tests.
#
#   fake-rke.sh up|remove CONFIG_PATH
#
# It provisions nothing. It appends one line per call to a log, "<unix-ms> <verb> <config> ok|failed", in
# $FAKE_RKE_LOG or else in fake-rke.log next to CONFIG_PATH (so every test, each with its own directory, has its own).
# It fails, as rke would, when CONFIG_PATH is not a file; and on purpose when told to:
#   - FAKE_RKE_FAIL=<verb> in its environment (e.g. FAKE_RKE_FAIL=remove), or
#   - a marker file "<CONFIG_PATH>.fail-<verb>" exists (e.g. touch cluster.yml.fail-remove; rm it to recover).
# A marker file "<CONFIG_PATH>.hang-<verb>" makes that verb hang (to try the provisioner timeout).
set -euo pipefail

verb=${1:-}
config=${2:-}
if [[ $# -ne 2 || ( $verb != up && $verb != remove ) ]]; then
  echo "usage: fake-rke.sh up|remove CONFIG_PATH" >&2
  exit 2
fi
log=${FAKE_RKE_LOG:-$(dirname -- "$config")/fake-rke.log}
now_ms() { date +%s%3N; }

if [[ -e "$config.hang-$verb" ]]; then
  exec sleep 3600
fi
if [[ ${FAKE_RKE_FAIL:-} == "$verb" || -e "$config.fail-$verb" ]]; then
  echo "$(now_ms) $verb $config failed" >>"$log"
  echo "fake-rke: $verb $config: told to fail (FAKE_RKE_FAIL or $config.fail-$verb)" >&2
  exit 1
fi
if [[ ! -f $config ]]; then
  echo "$(now_ms) $verb $config failed" >>"$log"
  echo "fake-rke: $verb: failed to read config file $config: no such file" >&2
  exit 1
fi
echo "$(now_ms) $verb $config ok" >>"$log"
case $verb in
  up) echo "fake-rke: cluster from $config is up (nothing was provisioned)" ;;
  remove) echo "fake-rke: cluster from $config removed (nothing was torn down)" ;;
esac
