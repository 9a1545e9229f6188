package controller

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=update;patch
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=a;b,verbs=get
// +kubebuilder:rbac:groups="",resources=configmaps,resourceNames=c,verbs=get
// +kubebuilder:rbac:urls=/metrics;/stats,verbs=get
// +kubebuilder:rbac:urls=/metrics,verbs=post
// +kubebuilder:rbac:groups=policy,resources=podsecuritypolicies,resourceNames=restricted,verbs=use

// B adds more rules.
type B struct{}
