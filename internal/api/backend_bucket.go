package api

import "encoding/json"

// Kinds and the collection of backend buckets.
const (
	CollectionBackendBuckets = "backendBuckets"
	KindBackendBucket        = "compute#backendBucket"
	KindBackendBucketList    = "compute#backendBucketList"
)

// BackendBucket is a Cloud Storage bucket a URL map may send requests to
// (collection backendBuckets, global and regional). The data plane serves
// its objects from a local directory (the emulator's --bucket-dir).
type BackendBucket struct {
	Meta
	BucketName            string          `json:"bucketName,omitempty"`
	EnableCDN             bool            `json:"enableCdn,omitempty"`
	CustomResponseHeaders []string        `json:"customResponseHeaders,omitempty"`
	CdnPolicy             json.RawMessage `json:"cdnPolicy,omitempty"`
	// EdgeSecurityPolicy is the CLOUD_ARMOR_EDGE policy the data plane
	// applies to the bucket's requests (output only: set by
	// setEdgeSecurityPolicy).
	EdgeSecurityPolicy string `json:"edgeSecurityPolicy,omitempty"`
}
