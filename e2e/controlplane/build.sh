#!/usr/bin/env bash
# Builds the local control plane's binaries from their Go modules and caches them under
# ~/.cache/compositor/bin/<component>-<version>/ (reused when present, rebuilt when the version changes).
# Usage: e2e/controlplane/build.sh [component...]
#   components: kube-apiserver kube-controller-manager etcd helm registry crane
#   (registry and crane serve the package tests: an OCI registry with auth, and a tool that pushes to it)
# Prints "<component> <path>" per binary on stdout, progress on stderr; exits non-zero naming what failed.
set -euo pipefail

# Pinned versions: bump here and the cache key changes with them.
KUBERNETES_VERSION="${COMPOSITOR_KUBERNETES_VERSION:-v1.37.2}"
ETCD_VERSION="${COMPOSITOR_ETCD_VERSION:-v3.6.16}"
HELM_VERSION="${COMPOSITOR_HELM_VERSION:-v3.21.4}"
REGISTRY_VERSION="${COMPOSITOR_REGISTRY_VERSION:-v3.1.2}"
CRANE_VERSION="${COMPOSITOR_CRANE_VERSION:-v0.22.1}"

CACHE_DIR="${COMPOSITOR_CACHE_DIR:-$HOME/.cache/compositor}"
BIN_DIR="$CACHE_DIR/bin"
WORK_DIR="$CACHE_DIR/build"

log() { echo "controlplane-build: $*" >&2; }

require_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "go is not installed; install Go >= 1.25 or set KUBEBUILDER_ASSETS to a directory with prebuilt binaries"
    exit 1
  fi
}

# Runs a build into a temporary directory and moves it into place only when complete, so an interrupted
# build never leaves a half-written binary that a later run would trust.
install_binary() {
  local component="$1" version="$2" builder="$3"
  local dest="$BIN_DIR/$component-$version"
  if [[ -x "$dest/$component" ]]; then
    log "$component $version cached at $dest"
    echo "$component $dest/$component"
    return 0
  fi
  require_go
  log "building $component $version (cold builds take minutes)"
  local started=$SECONDS
  local staging="$dest.partial.$$"
  rm -rf "$staging" && mkdir -p "$staging"
  if ! "$builder" "$version" "$staging/$component"; then
    rm -rf "$staging"
    log "building $component $version failed"
    exit 1
  fi
  rm -rf "$dest" && mv "$staging" "$dest"
  log "built $component $version in $((SECONDS - started))s"
  echo "$component $dest/$component"
}

# k8s.io/kubernetes maps its staging modules to ./staging with replace directives, which only apply in the main
# module, so it is built from a wrapper module that pins every staging module to the matching v0.x tag.
kubernetes_module() {
  local version="$1" dir="$WORK_DIR/kubernetes-$version"
  if [[ -f "$dir/.ready" ]]; then echo "$dir"; return 0; fi
  mkdir -p "$dir"
  (
    cd "$dir"
    local gomod staging minor_tag="v0${version#v1}"
    gomod="$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    staging="$(grep -E '=> \./staging/src/' "$gomod" | awk '{print $1}' | sort -u)"
    {
      echo "module local/kubernetes-binaries"
      echo
      echo "go $(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/').0"
      echo
      echo "replace ("
      for module in $staging; do echo "  $module => $module $minor_tag"; done
      echo ")"
    } > go.mod
    go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$version" "k8s.io/kubernetes/cmd/kube-controller-manager@$version" >&2
    go mod tidy >&2
  ) || return 1
  touch "$dir/.ready"
  echo "$dir"
}

kubernetes_ldflags() {
  local version="$1" major minor
  major="$(echo "$version" | sed -E 's/^v([0-9]+)\..*/\1/')"
  minor="$(echo "$version" | sed -E 's/^v[0-9]+\.([0-9]+)\..*/\1/')"
  local flags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags="$flags -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}

build_kubernetes_command() {
  local command="$1" version="$2" out="$3" dir
  dir="$(kubernetes_module "$version")" || return 1
  (cd "$dir" && CGO_ENABLED=0 go build >&2 -trimpath -ldflags "$(kubernetes_ldflags "$version")" -o "$out" "k8s.io/kubernetes/cmd/$command")
}

build_kube_apiserver() { build_kubernetes_command kube-apiserver "$@"; }
build_kube_controller_manager() { build_kubernetes_command kube-controller-manager "$@"; }

# etcd's server module has local replace directives too, so it is also built from a wrapper module.
build_etcd() {
  local version="$1" out="$2" dir="$WORK_DIR/etcd-$1"
  mkdir -p "$dir"
  (
    cd "$dir"
    printf 'module local/etcd-binary\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" > go.mod
    go get -tool "go.etcd.io/etcd/server/v3@$version" >&2
    go mod tidy >&2
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out" go.etcd.io/etcd/server/v3 >&2
  )
}

build_helm() {
  local version="$1" out="$2" dir="$WORK_DIR/helm-$1"
  mkdir -p "$dir"
  (
    cd "$dir"
    printf 'module local/helm-binary\n\ngo %s.0\n' "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" > go.mod
    go get -tool "helm.sh/helm/v3/cmd/helm@$version" >&2
    go mod tidy >&2
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version" -o "$out" helm.sh/helm/v3/cmd/helm >&2
  )
}

# A Go command from a module without replace directives, built from a wrapper module that pins it.
build_go_tool() {
  local name="$1" package="$2" version="$3" out="$4" dir="$WORK_DIR/$1-$3"
  mkdir -p "$dir"
  (
    cd "$dir"
    printf 'module local/%s-binary\n\ngo %s.0\n' "$name" "$(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')" > go.mod
    go get -tool "$package@$version" >&2
    go mod tidy >&2
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out" "$package" >&2
  )
}

# The CNCF distribution registry: the reference OCI registry, with htpasswd and token authentication.
build_registry() { build_go_tool registry github.com/distribution/distribution/v3/cmd/registry "$@"; }
# go-containerregistry's crane pushes an OCI image layout (images and indexes) with the registry's auth flow.
build_crane() { build_go_tool crane github.com/google/go-containerregistry/cmd/crane "$@"; }

components=("$@")
if [[ ${#components[@]} -eq 0 ]]; then components=(etcd kube-apiserver kube-controller-manager helm registry crane); fi
mkdir -p "$BIN_DIR" "$WORK_DIR"
for component in "${components[@]}"; do
  case "$component" in
    kube-apiserver) install_binary kube-apiserver "$KUBERNETES_VERSION" build_kube_apiserver ;;
    kube-controller-manager) install_binary kube-controller-manager "$KUBERNETES_VERSION" build_kube_controller_manager ;;
    etcd) install_binary etcd "$ETCD_VERSION" build_etcd ;;
    helm) install_binary helm "$HELM_VERSION" build_helm ;;
    registry) install_binary registry "$REGISTRY_VERSION" build_registry ;;
    crane) install_binary crane "$CRANE_VERSION" build_crane ;;
    *) log "unknown component '$component' (expected kube-apiserver, kube-controller-manager, etcd, helm, registry or crane)"; exit 2 ;;
  esac
done
