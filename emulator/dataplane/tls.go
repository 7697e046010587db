package dataplane

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TLS termination for target HTTPS and SSL proxies. The Compute API never
// returns a certificate's private key, and the emulator never stores it,
// so a listener cannot present the user's own certificate: it presents a
// self-signed one, made here, for the same names (the stored
// certificate's subject and DNS names, a managed certificate's domains).
// A client that checks names sees the names it expects; one that checks
// the chain must skip verification, as with any local test server.

// certificateNames are the host names c is for.
func certificateNames(c *api.SSLCertificate) []string {
	pemText := c.Certificate
	if c.SelfManaged != nil && c.SelfManaged.Certificate != "" {
		pemText = c.SelfManaged.Certificate
	}
	var out []string
	if block, _ := pem.Decode([]byte(pemText)); block != nil {
		if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, cert.DNSNames...)
			if len(out) == 0 && cert.Subject.CommonName != "" {
				out = append(out, cert.Subject.CommonName)
			}
		}
	}
	if c.Managed != nil {
		out = append(out, c.Managed.Domains...)
	}
	if len(out) == 0 {
		out = append(out, c.SubjectAlternativeNames...)
	}
	return out
}

// tlsConfig is the TLS a proxy ends with: a certificate per sslCertificate
// it names (the client's server name picks among them, the first when
// none fits), or its certificate map's when it has one (the map takes
// precedence, as in the cloud), and its SSL policy's minimum version.
func (p *Plane) tlsConfig(certs []string, certificateMap, policy string) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS10}
	if sp := p.sslPolicies[api.PathOf(policy)]; sp != nil {
		cfg.MinVersion = tlsVersion(sp.MinTLSVersion)
	}
	if certificateMap != "" {
		if pick := p.mapCertificates(api.PathOf(certificateMap)); pick != nil {
			cfg.GetCertificate = pick
			return cfg
		}
		certs = nil // a map without entries: no certificate of its own
	}
	for _, ref := range certs {
		c := p.sslCertificates[api.PathOf(ref)]
		if c == nil {
			continue
		}
		if tc, err := p.certificateOf(c); err == nil {
			cfg.Certificates = append(cfg.Certificates, tc)
		} else {
			p.log.Error("data plane: no certificate made", "certificate", ref, "error", err)
		}
	}
	if len(cfg.Certificates) == 0 {
		// Nothing to present yet (a certificate or an entry not made):
		// a certificate for localhost.
		if tc, err := p.certificateOf(&api.SSLCertificate{SubjectAlternativeNames: []string{"localhost"}}); err == nil {
			cfg.Certificates = append(cfg.Certificates, tc)
		}
	}
	return cfg
}

// mapCertificates picks, by the client's server name, the certificate of
// a Certificate Manager map's entry as the cloud does: the entry whose
// hostname is that name, else the one whose wildcard hostname covers it,
// else the PRIMARY entry (else the first entry). The certificate
// presented is the stand-in of the entry's certificate, for its names and
// the entry's hostname. nil when the map has no entry.
func (p *Plane) mapCertificates(mapName string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	var entries []*api.CertificateMapEntry
	for _, e := range p.cmEntries {
		if strings.HasPrefix(e.Name, mapName+"/certificateMapEntries/") {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	slices.SortFunc(entries, func(a, b *api.CertificateMapEntry) int { return strings.Compare(a.Name, b.Name) })
	made := make(map[*api.CertificateMapEntry]*tls.Certificate, len(entries))
	for _, e := range entries {
		tc, ok := p.cmMade[e]
		if !ok {
			names := []string{}
			if e.Hostname != "" {
				names = append(names, e.Hostname)
			}
			for _, ref := range e.Certificates {
				for _, c := range p.cmCertificates {
					if c.Name == api.PathOf(ref) {
						names = append(names, c.SanDnsnames...)
					}
				}
			}
			var err error
			if tc, err = selfSigned(names); err != nil {
				p.log.Error("data plane: no certificate made", "certificateMapEntry", e.Name, "error", err)
				continue
			}
			p.cmMade[e] = tc
		}
		made[e] = &tc
	}
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		name := strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
		var wildcard, primary *tls.Certificate
		for _, e := range entries {
			tc := made[e]
			switch host := strings.ToLower(e.Hostname); {
			case tc == nil:
			case host != "" && host == name:
				return tc, nil
			case strings.HasPrefix(host, "*.") && wildcard == nil:
				if _, rest, ok := strings.Cut(name, "."); ok && rest == host[2:] {
					wildcard = tc
				}
			case e.Matcher == "PRIMARY" && primary == nil:
				primary = tc
			}
		}
		if tc := cmp.Or(wildcard, primary); tc != nil {
			return tc, nil
		}
		for _, e := range entries {
			if made[e] != nil {
				return made[e], nil
			}
		}
		return nil, errors.New("no certificate of the map could be made")
	}
}

// tlsVersion is the version a policy's minTlsVersion names (TLS 1.0 when
// unset, as the default policy).
func tlsVersion(name string) uint16 {
	switch name {
	case "TLS_1_1":
		return tls.VersionTLS11
	case "TLS_1_2":
		return tls.VersionTLS12
	case "TLS_1_3":
		return tls.VersionTLS13
	}
	return tls.VersionTLS10
}

// certificateOf is the self-signed certificate that stands for c, made
// once per version of c.
func (p *Plane) certificateOf(c *api.SSLCertificate) (tls.Certificate, error) {
	if tc, ok := p.certs[c]; ok {
		return tc, nil
	}
	tc, err := selfSigned(certificateNames(c))
	if err == nil {
		p.certs[c] = tc
	}
	return tc, err
}

// selfSigned makes a certificate for names and loopback.
func selfSigned(names []string) (tls.Certificate, error) {
	cn := "lbhealth data plane"
	if len(names) > 0 {
		cn = names[0]
	}
	return targets.SelfSigned(cn, names, "")
}
