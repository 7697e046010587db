package dataplane

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"

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
func certificateNames(c *sslCertificate) []string {
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
// none fits) and its SSL policy's minimum version.
func (p *Plane) tlsConfig(certs []string, policy string) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS10}
	if sp := p.sslPolicies[api.PathOf(policy)]; sp != nil {
		cfg.MinVersion = tlsVersion(sp.MinTLSVersion)
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
		// A certificate map, which the emulator does not model.
		if tc, err := p.certificateOf(&sslCertificate{SubjectAlternativeNames: []string{"localhost"}}); err == nil {
			cfg.Certificates = append(cfg.Certificates, tc)
		}
	}
	return cfg
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
func (p *Plane) certificateOf(c *sslCertificate) (tls.Certificate, error) {
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
