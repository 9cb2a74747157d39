#!/usr/bin/env bash
# npm run e2e:kind: the e2e suite against a kind cluster, for machines with a container engine. Creates the cluster
# (unless E2E_KUBECONFIG points at one), builds the image and loads it into kind, then runs the same scenarios as
# `npm run e2e` with E2E_TARGET=kind: compositor is installed with `helm upgrade --install` instead of started as a
# local process. The e2e function runs on this machine and is reached through the kind network's gateway. Then
# e2e/kind/functionPackage.kind.ts: compositor pulls and runs a real packaged function and composes with it.
set -euo pipefail
cd "$(dirname "$0")/../.."

cluster=${E2E_KIND_CLUSTER:-compositor-e2e}
image=${E2E_IMAGE:-compositor:e2e}
for tool in docker kind; do
  command -v "$tool" >/dev/null || { echo "e2e:kind: $tool is required (see docs/testing.md, End-to-end tests)" >&2; exit 1; }
done

if [[ -z "${E2E_KUBECONFIG:-}" ]]; then
  kind get clusters | grep -qx "$cluster" || kind create cluster --name "$cluster" --wait 120s
  E2E_KUBECONFIG=$(mktemp)
  kind get kubeconfig --name "$cluster" >"$E2E_KUBECONFIG"
  export E2E_KUBECONFIG
fi

docker build -t "$image" .
kind load docker-image "$image" --name "$cluster"

if [[ -z "${E2E_FUNCTION_HOST:-}" ]]; then
  E2E_FUNCTION_HOST=$(docker network inspect kind -f '{{range .IPAM.Config}}{{.Gateway}} {{end}}' |
    tr ' ' '\n' | grep -E '^[0-9]+\.' | head -1)
  export E2E_FUNCTION_HOST
fi

npm run controlplane:build # helm, built from its Go module like the local control plane
E2E_TARGET=kind E2E_IMAGE="$image" npx mocha --config e2e/.mocharc.json
# kind only: a real packaged function (function-go-templating, or E2E_FUNCTION_PACKAGE) that compositor installs and
# runs itself with the chart's default --package-runtime=Deployment, and an XR composed with it.
E2E_TARGET=kind E2E_IMAGE="$image" npx mocha --node-option import=tsx --require e2e/setup.ts --timeout 600000 \
  e2e/kind/functionPackage.kind.ts
