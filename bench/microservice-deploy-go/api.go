package main

// The MicroServiceDeploy kind (custom.ops/v1), written by hand with the JSON fields of
// examples/microservice-deploy/config/crd/bases/custom.ops_microservicedeploys.yaml.

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of MicroServiceDeploy.
var GroupVersion = schema.GroupVersion{Group: "custom.ops", Version: "v1"}

// MicroServiceDeploySpec defines the desired state of MicroServiceDeploy.
type MicroServiceDeploySpec struct {
	MsName               string                       `json:"msName"`
	FullName             string                       `json:"fullName"`
	Version              string                       `json:"version"`
	Path                 string                       `json:"path,omitempty"`
	Image                string                       `json:"image"`
	Replicas             int32                        `json:"replicas,omitempty"`
	Autoscaling          bool                         `json:"autoscaling,omitempty"`
	NeedAuth             bool                         `json:"needAuth,omitempty"`
	Config               string                       `json:"config,omitempty"`
	CreationTimestamp    string                       `json:"creationTimestamp,omitempty"`
	ResourceRequirements *corev1.ResourceRequirements `json:"resourceRequirements,omitempty"`
	Idle                 bool                         `json:"idle,omitempty"`
}

// MicroServiceDeployStatus defines the observed state of MicroServiceDeploy.
type MicroServiceDeployStatus struct {
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	ObservedGeneration *int64             `json:"observedGeneration,omitempty"`
}

// MicroServiceDeploy is one instance (one version) of a microservice.
type MicroServiceDeploy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MicroServiceDeploySpec   `json:"spec"`
	Status MicroServiceDeployStatus `json:"status,omitempty"`
}

// MicroServiceDeployList is a list of MicroServiceDeploys.
type MicroServiceDeployList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MicroServiceDeploy `json:"items"`
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &MicroServiceDeploy{}, &MicroServiceDeployList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}

// DeepCopyInto copies the spec into out.
func (in *MicroServiceDeploySpec) DeepCopyInto(out *MicroServiceDeploySpec) {
	*out = *in
	if in.ResourceRequirements != nil {
		out.ResourceRequirements = in.ResourceRequirements.DeepCopy()
	}
}

// DeepCopyInto copies the status into out.
func (in *MicroServiceDeployStatus) DeepCopyInto(out *MicroServiceDeployStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	if in.ObservedGeneration != nil {
		generation := *in.ObservedGeneration
		out.ObservedGeneration = &generation
	}
}

// DeepCopyInto copies the object into out.
func (in *MicroServiceDeploy) DeepCopyInto(out *MicroServiceDeploy) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of the object.
func (in *MicroServiceDeploy) DeepCopy() *MicroServiceDeploy {
	if in == nil {
		return nil
	}
	out := new(MicroServiceDeploy)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *MicroServiceDeploy) DeepCopyObject() runtime.Object {
	return in.DeepCopy()
}

// DeepCopyObject implements runtime.Object.
func (in *MicroServiceDeployList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(MicroServiceDeployList)
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]MicroServiceDeploy, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
