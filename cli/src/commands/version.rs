//! `rkb version`.

pub const SHORT: &str = env!("CARGO_PKG_VERSION");

pub const LONG: &str = concat!(
    "rkb ",
    env!("CARGO_PKG_VERSION"),
    "\nscaffolds: kube 5, k8s-openapi 0.29 (Kubernetes 1.35), rkb-runtime ",
    env!("CARGO_PKG_VERSION"),
    "\nmanifests: controller-gen v0.21.0 compatible",
    "\nproject layout: rust.rkb.io/v1 (kubebuilder PROJECT version 3)"
);
