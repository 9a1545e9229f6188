// +kubebuilder:object:generate=true
// +groupName=typelevel.corpus.rkb.io
package v1
