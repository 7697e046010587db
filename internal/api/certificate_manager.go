package api

// Certificate Manager's collections, stored beside Compute's under their
// own names (their API is not Compute's, so they are not in the
// catalogue). A target HTTPS or SSL proxy's certificateMap names a map;
// the data plane ends TLS with the certificates of its entries.
const (
	CollectionCMCertificates = "certificatemanager.certificates"
	CollectionCMMaps         = "certificatemanager.certificateMaps"
	CollectionCMMapEntries   = "certificatemanager.certificateMapEntries"
)

// CMCertificate is a Certificate Manager certificate, as far as serving
// it needs: the names it is for (a self-managed certificate's own, a
// managed one's domains).
type CMCertificate struct {
	Name        string   `json:"name"`
	SanDnsnames []string `json:"sanDnsnames,omitempty"`
}

// CertificateMapEntry is one entry of a certificate map: the certificate
// served for a hostname (or, with matcher PRIMARY, when no hostname of
// the map fits the client's server name).
type CertificateMapEntry struct {
	// Name is projects/P/locations/L/certificateMaps/MAP/certificateMapEntries/ID.
	Name         string   `json:"name"`
	Hostname     string   `json:"hostname,omitempty"`
	Matcher      string   `json:"matcher,omitempty"`
	Certificates []string `json:"certificates,omitempty"`
}
