#!/usr/bin/env bash
# This repository's envtest control plane: the script every scaffolded project ships
# (templates/assets/setup-envtest.sh), with kube-controller-manager required, because this repository's tests
# run it (envtest/tests/controller_manager.rs, the examples' garbage collection). setup-envtest's downloads lack
# it, so the control plane comes from KUBEBUILDER_ASSETS when complete, else the cached build, else a build from Go
# modules. The last line printed is the directory (hack/test.sh reads it).
set -euo pipefail
export RKB_ENVTEST_CONTROLLER_MANAGER="${RKB_ENVTEST_CONTROLLER_MANAGER:-1}"
exec bash "$(dirname "${BASH_SOURCE[0]}")/../templates/assets/setup-envtest.sh" "$@"
