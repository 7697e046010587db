package dataplane

import (
	"net"
	"testing"
)

func TestSourceFor_TheClientsLoopbackAddressOfTheBackendsFamily(t *testing.T) {
	for _, c := range []struct {
		client, backend string
		want            string // "" for nil
	}{
		{"127.0.0.5:4000", "127.0.0.2:80", "127.0.0.5"},
		{"[::1]:4000", "[::1]:80", "::1"},
		{"[::1]:4000", "127.0.0.2:80", ""},     // another family
		{"127.0.0.5:4000", "[::1]:80", ""},     // another family
		{"192.0.2.7:4000", "127.0.0.2:80", ""}, // not this machine's to bind
		{"[::ffff:127.0.0.9]:1", "127.0.0.2:80", "127.0.0.9"},
	} {
		client, err := net.ResolveTCPAddr("tcp", c.client)
		if err != nil {
			t.Fatal(err)
		}
		got := sourceFor(client, c.backend)
		if (got == nil) != (c.want == "") || got != nil && got.String() != c.want {
			t.Errorf("sourceFor(%s, %s) = %v, want %q", c.client, c.backend, got, c.want)
		}
	}
}
