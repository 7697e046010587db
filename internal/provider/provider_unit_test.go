package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestSetting(t *testing.T) {
	tests := []struct {
		name       string
		config     types.String
		env        string
		want, from string
	}{
		{"configuration wins", types.StringValue("10.0.0.1:1"), "10.0.0.2:2", "10.0.0.1:1", "config"},
		{"environment next", types.StringNull(), "10.0.0.2:2", "10.0.0.2:2", EnvEndpoint},
		{"empty configuration falls through", types.StringValue(""), "", "127.0.0.1:8686", "the default"},
		{"default last", types.StringNull(), "", "127.0.0.1:8686", "the default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvEndpoint, tt.env)
			got, from := setting(tt.config, "config", EnvEndpoint, "127.0.0.1:8686")
			if got != tt.want || from != tt.from {
				t.Errorf("setting = %q from %q, want %q from %q", got, from, tt.want, tt.from)
			}
		})
	}
}
