// +kubebuilder:object:generate=true
// +groupName=rbac-basic.corpus.rkb.io
package v1
