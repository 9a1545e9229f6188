// Command gen-k8s-schemas packs the schemas controller-gen wrote for every k8s-openapi type into the
// data file rkb-manifests embeds (manifests/src/k8s/schemas.jsonl). Driven by hack/gen-k8s-schemas.sh.
//
// Input: a CRD whose spec has one property per k8s type (property "tNNNN" of the type listed at line
// NNNN of the names file). controller-gen flattens every property, so each property is the schema
// controller-gen emits for a field of that type that has no doc comment of its own.
//
// Output: one JSON object per line, {"name": <OpenAPI name>, "schema": <schema>}, sorted by name.
// Flattened schemas repeat their nested types (PodSpec is inside ~30 types), so every nested object
// equal to another type's whole schema (descriptions aside) is replaced by {"$ref": <name>} plus the
// field's own description when it differs ("$noDescription": true when the field has none).
// rkb-manifests expands these refs; this program checks that the expansion gives back exactly what
// controller-gen wrote before writing anything.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gen-k8s-schemas <crd.yaml> <names.txt> <out.jsonl>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "gen-k8s-schemas:", err)
		os.Exit(1)
	}
}

func run(crdPath, namesPath, outPath string) error {
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		return err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return fmt.Errorf("%s: %w", crdPath, err)
	}
	props, ok := dig(crd, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties").(map[string]any)
	if !ok {
		return fmt.Errorf("%s: no spec properties", crdPath)
	}
	namesRaw, err := os.ReadFile(namesPath)
	if err != nil {
		return err
	}
	names := strings.Fields(string(namesRaw))

	full := map[string]map[string]any{}
	for i, name := range names {
		s, ok := props[fmt.Sprintf("t%04d", i)].(map[string]any)
		if !ok {
			return fmt.Errorf("no property for %s", name)
		}
		full[name] = s
	}

	// Only sizeable object schemas become refs: replacing every {type: string, format: date-time}
	// by Time would save nothing and hide the shape.
	byKey := map[string]string{}
	for _, name := range sorted(full) {
		if isObjectSchema(full[name]) {
			k := keyOf(full[name])
			if _, dup := byKey[k]; !dup {
				byKey[k] = name
			}
		}
	}

	packed := map[string]any{}
	for _, name := range sorted(full) {
		packed[name] = pack(full[name], name, true, full, byKey)
	}
	for _, name := range sorted(full) {
		back := expand(packed[name], packed)
		if !reflect.DeepEqual(back, any(full[name])) {
			return fmt.Errorf("packing %s does not round-trip", name)
		}
	}

	var out bytes.Buffer
	for _, name := range sorted(full) {
		line, err := marshal(map[string]any{"name": name, "schema": packed[name]})
		if err != nil {
			return err
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return os.WriteFile(outPath, out.Bytes(), 0o644)
}

func isObjectSchema(s map[string]any) bool {
	_, hasProps := s["properties"]
	return s["type"] == "object" && hasProps
}

func keyOf(s map[string]any) string {
	c := make(map[string]any, len(s))
	for k, v := range s {
		if k != "description" {
			c[k] = v
		}
	}
	b, err := marshal(c)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Keys whose values are data, not schemas.
var dataKeys = map[string]bool{"default": true, "example": true, "enum": true, "x-kubernetes-validations": true, "required": true}

func pack(v any, self string, root bool, full map[string]map[string]any, byKey map[string]string) any {
	switch t := v.(type) {
	case map[string]any:
		if !root && isObjectSchema(t) {
			if name, ok := byKey[keyOf(t)]; ok && name != self {
				ref := map[string]any{"$ref": name}
				desc, has := t["description"]
				typeDesc, typeHas := full[name]["description"]
				switch {
				case has && (!typeHas || desc != typeDesc):
					ref["description"] = desc
				case !has && typeHas:
					ref["$noDescription"] = true
				}
				return ref
			}
		}
		out := make(map[string]any, len(t))
		for k, val := range t {
			if dataKeys[k] {
				out[k] = val
			} else {
				out[k] = pack(val, self, false, full, byKey)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = pack(val, self, false, full, byKey)
		}
		return out
	default:
		return v
	}
}

// expand is the inverse of pack; manifests/src/k8s/mod.rs implements the same rule.
func expand(v any, packed map[string]any) any {
	switch t := v.(type) {
	case map[string]any:
		if name, ok := t["$ref"].(string); ok {
			s := expand(packed[name], packed).(map[string]any)
			if d, ok := t["description"]; ok {
				s["description"] = d
			}
			if t["$noDescription"] == true {
				delete(s, "description")
			}
			return s
		}
		out := make(map[string]any, len(t))
		for k, val := range t {
			if dataKeys[k] {
				out[k] = val
			} else {
				out[k] = expand(val, packed)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = expand(val, packed)
		}
		return out
	default:
		return v
	}
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func sorted(m map[string]map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// marshal writes compact JSON with sorted keys and without Go's HTML escaping of <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	w.Flush()
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
