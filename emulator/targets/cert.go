package targets

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// SelfSignedCert makes a fresh certificate for TLS targets (these, and the
// benchmarks' own), valid for localhost, 127.0.0.1, ::1 and host (an IP
// literal, or "" for none more). Self-signed on purpose: health checks do
// not validate certificates, and a new key per start means nothing secret
// ever lives in the repository.
func SelfSignedCert(host string) (tls.Certificate, error) {
	return SelfSigned("lbhealth sample target", []string{"localhost"}, host)
}

// SelfSigned makes a fresh ECDSA P-256 certificate with commonName, valid
// for dnsNames, 127.0.0.1, ::1 and host (an IP literal, or "" for none
// more), its Leaf parsed: the targets' and the data plane's listeners'.
func SelfSigned(commonName string, dnsNames []string, host string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate certificate serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName},
		DNSNames:     dnsNames,
		IPAddresses:  sans(host),
		// An hour of slack for clocks that disagree a little.
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

func sans(host string) []net.IP {
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if ip := net.ParseIP(host); ip != nil && !ip.Equal(ips[0]) && !ip.Equal(ips[1]) {
		ips = append(ips, ip)
	}
	return ips
}

// serverTLS offers exactly one application protocol: an HTTPS target
// speaks HTTP/1.1 like the cloud's HTTPS checks, an HTTP2 target h2 only.
func serverTLS(cert *tls.Certificate, alpn string) *tls.Config {
	cfg := &tls.Config{
		Certificates: []tls.Certificate{*cert},
		NextProtos:   []string{alpn},
		MinVersion:   tls.VersionTLS12,
	}
	if alpn == "h2" {
		// crypto/tls lets a client that offers http/1.1 (or no ALPN at all)
		// complete the handshake without a protocol; an h2-only backend
		// must fail it, as a prober of HTTP/2 over TLS must.
		cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			if !slices.Contains(hello.SupportedProtos, "h2") {
				return nil, fmt.Errorf("client offers ALPN %q: this target speaks h2 only", hello.SupportedProtos)
			}
			return nil, nil
		}
	}
	return cfg
}
