package controller

// +kubebuilder:rbac:verbs=get;list,resources=pods,groups=""
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=GET;List
// +kubebuilder:rbac:groups=apps,resources=deployments/scale,verbs=update,namespace=team-a
// +kubebuilder:rbac:groups=apps,resources=deployments/scale,verbs=update
// +kubebuilder:rbac:groups=example.com,resources=widgets;gadgets;widgets,verbs=watch;get;get
// +kubebuilder:rbac:groups=zeta.io;alpha.io,resources=things,verbs=delete

// Odd exercises argument order, case and duplicates.
type Odd struct{}
