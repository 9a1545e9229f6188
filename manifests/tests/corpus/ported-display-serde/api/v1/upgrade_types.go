package v1

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Version is a release number, written as "major.minor".
// +kubebuilder:validation:Pattern=`^\d+\.\d+$`
type Version struct {
	Major int32
	Minor int32
}

// MarshalText implements encoding.TextMarshaler.
func (v Version) MarshalText() ([]byte, error) {
	return []byte(fmt.Sprintf("%d.%d", v.Major, v.Minor)), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Version) UnmarshalText(text []byte) error {
	_, err := fmt.Sscanf(string(text), "%d.%d", &v.Major, &v.Minor)
	return err
}

// Channel is a release channel, written as its name with "-beta" when it carries pre-releases.
// +kubebuilder:validation:MaxLength=32
type Channel struct {
	Name string
	Beta bool
}

// MarshalText implements encoding.TextMarshaler.
func (c Channel) MarshalText() ([]byte, error) {
	if c.Beta {
		return []byte(c.Name + "-beta"), nil
	}
	return []byte(c.Name), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Channel) UnmarshalText(text []byte) error {
	name, beta := strings.CutSuffix(string(text), "-beta")
	c.Name, c.Beta = name, beta
	return nil
}

// UpgradeSpec is the desired state of an Upgrade.
type UpgradeSpec struct {
	// Target is the version to upgrade to.
	Target Version `json:"target"`

	// Skipped versions are never installed.
	// +optional
	Skipped []Version `json:"skipped,omitempty"`

	// Channel the target is taken from.
	Channel Channel `json:"channel"`
}

// +kubebuilder:object:root=true

// Upgrade moves a fleet to a new release.
type Upgrade struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec UpgradeSpec `json:"spec"`
}
