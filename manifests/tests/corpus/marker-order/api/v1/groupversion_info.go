// +kubebuilder:object:generate=true
// +groupName=order.corpus.rkb.io
package v1
