package provider

import "testing"

func TestFrameworkLogLevel(t *testing.T) {
	for _, c := range []struct {
		env       map[string]string
		level     string
		setsLevel bool
	}{
		{map[string]string{}, "DEBUG", true},
		{map[string]string{"TF_LOG": "DEBUG"}, "DEBUG", true},
		{map[string]string{"TF_LOG": "trace"}, "", false},
		{map[string]string{"TF_LOG": "JSON"}, "", false},
		{map[string]string{"TF_LOG_PROVIDER": "TRACE"}, "", false},
		{map[string]string{"TF_LOG_SDK": "TRACE"}, "", false},
		{map[string]string{"TF_LOG_SDK_FRAMEWORK": "TRACE"}, "", false}, // the user's own choice
	} {
		level, ok := frameworkLogLevel(func(name string) string { return c.env[name] })
		if level != c.level || ok != c.setsLevel {
			t.Errorf("with %v: %q %v, want %q %v", c.env, level, ok, c.level, c.setsLevel)
		}
	}
}
