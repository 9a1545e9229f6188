package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobSpec is what the webhooks default and validate.
type CronJobSpec struct {
	// Schedule in cron format.
	Schedule string `json:"schedule"`
}

// CronJob is the Schema for the cronjobs API.
// +kubebuilder:object:root=true
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CronJobSpec `json:"spec,omitempty"`
}
