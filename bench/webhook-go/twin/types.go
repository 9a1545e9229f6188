package main

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The v1 CronJob of examples/cronjob (src/api/v1/cronjob_types.rs), field for field, with the JSON names of its
// CRD. Written by hand with hand-written deep copies, so the module needs no code generator.

var groupVersion = schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: "v1"}

type ConcurrencyPolicy string

const (
	AllowConcurrent   ConcurrencyPolicy = "Allow"
	ForbidConcurrent  ConcurrencyPolicy = "Forbid"
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

type CronJobSpec struct {
	Schedule                   string                  `json:"schedule"`
	StartingDeadlineSeconds    *int64                  `json:"startingDeadlineSeconds,omitempty"`
	ConcurrencyPolicy          *ConcurrencyPolicy      `json:"concurrencyPolicy,omitempty"`
	Suspend                    *bool                   `json:"suspend,omitempty"`
	JobTemplate                batchv1.JobTemplateSpec `json:"jobTemplate"`
	SuccessfulJobsHistoryLimit *int32                  `json:"successfulJobsHistoryLimit,omitempty"`
	FailedJobsHistoryLimit     *int32                  `json:"failedJobsHistoryLimit,omitempty"`
}

type CronJobStatus struct {
	Active           []corev1.ObjectReference `json:"active,omitempty"`
	LastScheduleTime *metav1.Time             `json:"lastScheduleTime,omitempty"`
	Conditions       []metav1.Condition       `json:"conditions,omitempty"`
}

type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CronJobSpec    `json:"spec"`
	Status            *CronJobStatus `json:"status,omitempty"`
}

type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func addToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(groupVersion, &CronJob{}, &CronJobList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	return nil
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func (in *CronJobSpec) deepCopyInto(out *CronJobSpec) {
	*out = *in
	out.StartingDeadlineSeconds = copyPtr(in.StartingDeadlineSeconds)
	out.ConcurrencyPolicy = copyPtr(in.ConcurrencyPolicy)
	out.Suspend = copyPtr(in.Suspend)
	in.JobTemplate.DeepCopyInto(&out.JobTemplate)
	out.SuccessfulJobsHistoryLimit = copyPtr(in.SuccessfulJobsHistoryLimit)
	out.FailedJobsHistoryLimit = copyPtr(in.FailedJobsHistoryLimit)
}

func (in *CronJobStatus) deepCopy() *CronJobStatus {
	if in == nil {
		return nil
	}
	out := &CronJobStatus{LastScheduleTime: in.LastScheduleTime.DeepCopy()}
	if in.Active != nil {
		out.Active = make([]corev1.ObjectReference, len(in.Active))
		copy(out.Active, in.Active)
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	return out
}

func (in *CronJob) DeepCopyInto(out *CronJob) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.deepCopyInto(&out.Spec)
	out.Status = in.Status.deepCopy()
}

func (in *CronJob) DeepCopyObject() runtime.Object {
	out := new(CronJob)
	in.DeepCopyInto(out)
	return out
}

func (in *CronJobList) DeepCopyObject() runtime.Object {
	out := &CronJobList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]CronJob, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
