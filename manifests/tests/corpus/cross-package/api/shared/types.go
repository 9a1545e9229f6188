// Package shared holds types used by several API packages; it has no group.
package shared

// Container is a local type that shares its name with core/v1's.
type Container struct {
	// Command to run.
	Command []string `json:"command"`
	// Shell to run the command in.
	// +kubebuilder:default=sh
	// +optional
	Shell string `json:"shell,omitempty"`
}

// Retry configures retries.
// +kubebuilder:validation:XValidation:rule="self.attempts <= 10",message="too many attempts"
type Retry struct {
	// Attempts before giving up.
	// +kubebuilder:validation:Minimum=1
	Attempts int32 `json:"attempts"`
}
