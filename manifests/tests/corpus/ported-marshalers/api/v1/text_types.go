package v1

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Endpoint is a host and a port, written as one string "host:port": its JSON is that text, not its fields.
type Endpoint struct {
	Host string
	Port int32
}

// MarshalText implements encoding.TextMarshaler.
func (e Endpoint) MarshalText() ([]byte, error) {
	return []byte(net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (e *Endpoint) UnmarshalText(text []byte) error {
	host, port, err := net.SplitHostPort(string(text))
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(port, 10, 32)
	e.Host, e.Port = host, int32(n)
	return err
}

// CIDR is an IP network written in CIDR notation.
// +kubebuilder:validation:Format=cidr
// +kubebuilder:validation:MaxLength=43
type CIDR struct {
	// A named field, not an embedded net.IPNet: controller-gen v0.21.0 does not see the MarshalText of a struct
	// that embeds another package's struct, and describes its fields instead.
	Network net.IPNet
}

// MarshalText implements encoding.TextMarshaler.
func (c CIDR) MarshalText() ([]byte, error) { return []byte(c.Network.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *CIDR) UnmarshalText(text []byte) error {
	_, n, err := net.ParseCIDR(string(text))
	if err == nil {
		c.Network = *n
	}
	return err
}

// +kubebuilder:validation:Format=uri

// Link is a URL, written as text.
type Link url.URL

// MarshalText implements encoding.TextMarshaler.
func (l *Link) MarshalText() ([]byte, error) { return (*url.URL)(l).MarshalBinary() }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Link) UnmarshalText(text []byte) error { return (*url.URL)(l).UnmarshalBinary(text) }

// Level is a log level: a number in memory, its name on the wire.
// +kubebuilder:validation:Enum=debug;info;warn
type Level int

const (
	LevelDebug Level = iota
	LevelInfo
	LevelWarn
)

var levelNames = []string{"debug", "info", "warn"}

// MarshalText implements encoding.TextMarshaler.
func (l Level) MarshalText() ([]byte, error) {
	if int(l) < 0 || int(l) >= len(levelNames) {
		return nil, fmt.Errorf("unknown level %d", int(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Level) UnmarshalText(text []byte) error {
	for i, name := range levelNames {
		if strings.EqualFold(name, string(text)) {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("unknown level %q", text)
}
