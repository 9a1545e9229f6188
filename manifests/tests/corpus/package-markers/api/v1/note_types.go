package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NoteSpec has docs with lines that look like markers.
type NoteSpec struct {
	// Votes counts votes:
	// +1 lines are read as markers and dropped,
	// as are +kubebuilder lines.
	// (parenthesised +1 stays).
	// +optional
	Votes int32 `json:"votes,omitempty"`
	// Text of the note.
	// +kubebuilder:validation:MaxLength=280
	Text string `json:"text"`
}

// Note is the Schema for the notes API.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=nt
type Note struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NoteSpec `json:"spec"`
}
