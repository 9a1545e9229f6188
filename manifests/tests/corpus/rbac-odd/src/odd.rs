/// Odd exercises argument order, case and duplicates.
/// +kubebuilder:rbac:groups=apps,resources=deployments/scale,verbs=update,namespace=team-a
/// +kubebuilder:rbac:groups=apps,resources=deployments/scale,verbs=update
/// +kubebuilder:rbac:groups=example.com,resources=widgets;gadgets;widgets,verbs=watch;get;get
/// +kubebuilder:rbac:groups=zeta.io;alpha.io,resources=things,verbs=delete
pub struct Odd;
