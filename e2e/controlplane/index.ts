// e2e/controlplane: a real kube-apiserver, etcd and kube-controller-manager for tests and `compositor dev`,
// built from their Go modules (build.sh) and started on loopback ports.
export { ControlPlane, type ControlPlaneOptions } from './controlPlane.js';
export { resolveBinaries, type Component } from './binaries.js';
