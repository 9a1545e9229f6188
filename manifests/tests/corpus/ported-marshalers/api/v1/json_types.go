package v1

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// +kubebuilder:validation:Type=string
// +kubebuilder:validation:Enum=on;off

// Toggle is a switch written as "on" or "off".
type Toggle bool

func (t Toggle) MarshalJSON() ([]byte, error) {
	if t {
		return []byte(`"on"`), nil
	}
	return []byte(`"off"`), nil
}

func (t *Toggle) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	*t = Toggle(s == "on")
	return err
}

// +kubebuilder:validation:Type=integer
// +kubebuilder:validation:Format=int64
// Instant is a point in time. Its text is RFC 3339 and its JSON milliseconds since the epoch; the JSON
// form is the one the schema describes.
type Instant time.Time

// MarshalText implements encoding.TextMarshaler.
func (i Instant) MarshalText() ([]byte, error) { return time.Time(i).MarshalText() }

// MarshalJSON implements json.Marshaler.
func (i Instant) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, time.Time(i).UnixMilli(), 10), nil
}

func (i *Instant) UnmarshalJSON(b []byte) error {
	ms, err := strconv.ParseInt(string(b), 10, 64)
	*i = Instant(time.UnixMilli(ms))
	return err
}

// Extras are settings for plugins: a known "plugin" field and any others, kept as they are.
// +kubebuilder:validation:Type=object
// +kubebuilder:pruning:PreserveUnknownFields
type Extras struct {
	Plugin string         `json:"plugin"`
	Rest   map[string]any `json:"-"`
}

func (e Extras) MarshalJSON() ([]byte, error) {
	all := map[string]any{}
	for k, v := range e.Rest {
		all[k] = v
	}
	all["plugin"] = e.Plugin
	return json.Marshal(all)
}

func (e *Extras) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &e.Rest); err != nil {
		return err
	}
	e.Plugin, _ = e.Rest["plugin"].(string)
	delete(e.Rest, "plugin")
	return nil
}

// Schedule is a range of days. Its JSON is its fields, trimmed when written: without a Type marker, the
// schema describes its fields.
type Schedule struct {
	// From is the first day, e.g. "Mon".
	From string `json:"from"`
	// To is the last day, e.g. "Fri".
	// +optional
	To string `json:"to,omitempty"`
}

func (s Schedule) MarshalJSON() ([]byte, error) {
	type plain Schedule
	return json.Marshal(plain{From: strings.TrimSpace(s.From), To: strings.TrimSpace(s.To)})
}
