package v1

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Seconds is a duration written as whole seconds; controller-gen takes its schema from its markers alone.
// +kubebuilder:validation:Type=integer
// +kubebuilder:validation:Format=int64
type Seconds struct {
	d time.Duration
}

func (s Seconds) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatInt(int64(s.d/time.Second), 10)), nil
}

func (s *Seconds) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(b), 10, 64)
	s.d = time.Duration(n) * time.Second
	return err
}

func (in *Seconds) DeepCopyInto(out *Seconds) { *out = *in }

// Address is a URL written as a string.
// +kubebuilder:validation:Type=string
// +kubebuilder:validation:Format=uri
// +kubebuilder:validation:MaxLength=2048
type Address struct {
	raw string
}

func (a Address) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(a.raw)), nil }

func (a *Address) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	a.raw = s
	return err
}

func (in *Address) DeepCopyInto(out *Address) { *out = *in }

// TimerSpec uses types whose wire format is not their fields.
type TimerSpec struct {
	// Timeout before the timer fires.
	Timeout Seconds `json:"timeout"`
	// Grace after the timeout, if any.
	// +optional
	Grace *Seconds `json:"grace,omitempty"`
	// Callback to call when the timer fires.
	Callback Address `json:"callback"`
	// Mirrors to call as well.
	// +optional
	Mirrors []Address `json:"mirrors,omitempty"`
}

// Timer is the Schema for the timers API.
// +kubebuilder:object:root=true
type Timer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TimerSpec `json:"spec"`
}
