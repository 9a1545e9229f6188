package v1

import (
	"fmt"
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

// Priority is written as a number from 0 to 9.
// +kubebuilder:validation:Type=integer
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=9
type Priority struct {
	level int
}

func (p Priority) MarshalJSON() ([]byte, error) { return []byte(strconv.Itoa(p.level)), nil }

func (p *Priority) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(b))
	p.level = n
	return err
}

func (in *Priority) DeepCopyInto(out *Priority) { *out = *in }

// Window is a daily time range written as "HH:MM-HH:MM".
// +kubebuilder:validation:Type=string
// +kubebuilder:validation:Pattern=`^\d\d:\d\d-\d\d:\d\d$`
type Window struct {
	start int
	end   int
}

func (w Window) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(fmt.Sprintf("%02d:%02d-%02d:%02d", w.start/60, w.start%60, w.end/60, w.end%60))), nil
}

func (w *Window) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	var h1, m1, h2, m2 int
	if _, err := fmt.Sscanf(s, "%d:%d-%d:%d", &h1, &m1, &h2, &m2); err != nil {
		return err
	}
	w.start, w.end = h1*60+m1, h2*60+m2
	return nil
}

func (in *Window) DeepCopyInto(out *Window) { *out = *in }

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
	// Priority of the timer among those firing together.
	Priority Priority `json:"priority"`
	// Window the timer may fire in, if limited.
	// +optional
	Window *Window `json:"window,omitempty"`
}

// Timer is the Schema for the timers API.
// +kubebuilder:object:root=true
type Timer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TimerSpec `json:"spec"`
}
