//! RBAC markers may live anywhere in src/, here in main.rs.
//! +kubebuilder:rbac:verbs=get;list,resources=pods,groups=""
//! +kubebuilder:rbac:groups="",resources=pods,verbs=get;list
//! +kubebuilder:rbac:groups=apps,resources=deployments,verbs=GET;List

mod odd;

fn main() {}
