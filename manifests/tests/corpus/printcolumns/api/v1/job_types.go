package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BackupJobSpec is the desired state.
type BackupJobSpec struct {
	// Schedule in cron format.
	Schedule string `json:"schedule"`
	// Target bucket.
	Target string `json:"target"`
}

// BackupJobStatus is the observed state.
type BackupJobStatus struct {
	// Phase of the job.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Succeeded runs.
	// +optional
	Succeeded int32 `json:"succeeded,omitempty"`
	// LastRun time.
	// +optional
	LastRun *metav1.Time `json:"lastRun,omitempty"`
}

// BackupJob shows extra columns in kubectl get.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target`,description="Bucket written to",priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Succeeded",type=integer,JSONPath=`.status.succeeded`,format=int32
// +kubebuilder:printcolumn:name="Last Run",type=date,JSONPath=`.status.lastRun`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type BackupJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupJobSpec   `json:"spec,omitempty"`
	Status BackupJobStatus `json:"status,omitempty"`
}
