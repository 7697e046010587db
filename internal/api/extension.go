package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// ExtensionBlock is the block of a check type lbhealth adds to the Compute
// API (Protocol.Extension): the port fields every block has, and the
// type's own string fields (Protocol.Text) by JSON name. On the wire it is
// one flat object, as the API's own blocks are.
type ExtensionBlock struct {
	PortFields
	Text map[string]*string
	// Lists are the type's lists of strings (Extension.Lists), by JSON name.
	Lists map[string]*[]string
}

// MarshalJSON writes the port fields and the string fields that are set.
func (b ExtensionBlock) MarshalJSON() ([]byte, error) {
	out, err := json.Marshal(b.PortFields)
	if err != nil {
		return nil, err
	}
	var extra []string
	for name, v := range b.Text {
		if v != nil && *v != "" {
			extra = append(extra, name)
		}
	}
	for name, v := range b.Lists {
		if v != nil && len(*v) > 0 {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		var value any
		if v, ok := b.Text[name]; ok && v != nil {
			value = *v
		} else {
			value = *b.Lists[name]
		}
		if out, err = appendMember(out, name, value); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnmarshalJSON reads the port fields, and every other member as a string
// field (the schema has already refused members the type does not have).
func (b *ExtensionBlock) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &b.PortFields); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	for name, raw := range members {
		switch name {
		case "port", "portName", "portSpecification", "proxyHeader":
			continue
		}
		if list, ok := b.Lists[name]; ok {
			var v []string
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("%s: want a list of strings: %w", name, err)
			}
			*list = v
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: want a string: %w", name, err)
		}
		if b.Text == nil {
			b.Text = map[string]*string{}
		}
		b.Text[name] = &v
	}
	return nil
}

// healthCheckFields is HealthCheck without its JSON methods.
type healthCheckFields HealthCheck

// MarshalJSON writes the health check with its extension blocks as
// members of their own, next to the API's blocks.
func (h HealthCheck) MarshalJSON() ([]byte, error) {
	out, err := json.Marshal(healthCheckFields(h))
	if err != nil || len(h.Extensions) == 0 {
		return out, err
	}
	fields := make([]string, 0, len(h.Extensions))
	for field, b := range h.Extensions {
		if b != nil {
			fields = append(fields, field)
		}
	}
	sort.Strings(fields)
	for _, field := range fields {
		if out, err = appendMember(out, field, h.Extensions[field]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// UnmarshalJSON reads the health check and the blocks of the extension
// types of the table of protocols.
func (h *HealthCheck) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*healthCheckFields)(h)); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	for _, p := range Protocols {
		if p.Extension == nil || !bytes.Contains(data, []byte(`"`+p.Field+`"`)) {
			continue
		}
		if members == nil {
			if err := json.Unmarshal(data, &members); err != nil {
				return err
			}
		}
		raw, ok := members[p.Field]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		b := p.newBlock()
		if err := json.Unmarshal(raw, b); err != nil {
			return fmt.Errorf("%s: %w", p.Field, err)
		}
		h.setExtension(p.Field, b)
	}
	return nil
}

// appendMember adds "name": value to the JSON object obj.
func appendMember(obj []byte, name string, value any) ([]byte, error) {
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	k, _ := json.Marshal(name)
	out := obj[:len(obj)-1] // drop the closing brace
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, v...)
	return append(out, '}'), nil
}
