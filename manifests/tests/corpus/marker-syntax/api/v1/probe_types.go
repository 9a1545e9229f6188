package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Target of a probe.
type Target struct {
	// Name of the target.
	Name string `json:"name"`
	// Port of the target.
	// +optional
	Port int32 `json:"port,omitempty"`
}

// ProbeSpec spells marker arguments in every accepted way.
type ProbeSpec struct {
	// Offset may be negative.
	// +kubebuilder:validation:Minimum=-273
	// +kubebuilder:validation:Maximum=9007199254740991
	// +optional
	Offset int64 `json:"offset,omitempty"`
	// Gain has fractional bounds.
	// +kubebuilder:validation:Minimum=0.5
	// +kubebuilder:validation:MultipleOf=0.25
	// +optional
	Gain float64 `json:"gain,omitempty"`
	// Kind uses the braces list syntax.
	// +kubebuilder:validation:Enum={"tcp","udp","sctp"}
	// +optional
	Kind string `json:"kind,omitempty"`
	// Expr is checked with a backtick-quoted rule.
	// +kubebuilder:validation:XValidation:rule=`self.startsWith("expr:") && !self.contains('"')`,message=`must start with "expr:"`
	// +optional
	Expr string `json:"expr,omitempty"`
	// Quote has a pattern with quotes and backslashes.
	// +kubebuilder:validation:Pattern=`^"[^"\\]*"$`
	// +optional
	Quote string `json:"quote,omitempty"`
	// Targets default to a list of objects.
	// +kubebuilder:default={{name: "a", port: 80}, {name: "b"}}
	// +optional
	Targets []Target `json:"targets,omitempty"`
	// Weights default to floats and negatives.
	// +kubebuilder:default={1.5, -2, 0}
	// +optional
	Weights []float64 `json:"weights,omitempty"`
	// Greeting defaults to text with commas and colons.
	// +kubebuilder:default="hello, world: hi"
	// +optional
	Greeting string `json:"greeting,omitempty"`
	// Names defaults to an empty list.
	// +kubebuilder:default={}
	// +optional
	Names []string `json:"names,omitempty"`
	// Mixed is an enum of odd values.
	// +kubebuilder:validation:Enum="a b";"c,d";"";"true"
	// +optional
	Mixed string `json:"mixed,omitempty"`
}

// Probe is the Schema for the probes API.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName={pr,prb},categories={diagnostics}
// +kubebuilder:printcolumn:name="Kind",type="string",JSONPath=".spec.kind",priority=0
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ProbeSpec `json:"spec,omitempty"`
}
