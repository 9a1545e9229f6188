package controller

// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=watch;get
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=get;list
// +kubebuilder:rbac:groups=apps;extensions,resources=daemonsets,verbs=get
// +kubebuilder:rbac:groups="",resources=pods;pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=pods,verbs=delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=*
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=batch,resources=jobs;cronjobs,verbs=create;delete
// +kubebuilder:rbac:groups="",namespace=kube-system,resources=configmaps,verbs=get
// +kubebuilder:rbac:groups="",namespace=kube-system,resources=configmaps,verbs=watch;list

// A reconciles with overlapping rules.
type A struct{}
