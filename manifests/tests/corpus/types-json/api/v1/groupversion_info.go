// +kubebuilder:object:generate=true
// +groupName=json.corpus.rkb.io
package v1
