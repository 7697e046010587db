package rules

import "testing"

func TestBackendBucket(t *testing.T) {
	checkCases(t, BackendBucket, []struct{ name, body, want, field string }{
		{name: "plain", body: `{"name": "static", "bucketName": "my-static-assets", "enableCdn": true, "cdnPolicy": {"cacheMode": "CACHE_ALL_STATIC"}}`},
		{name: "dotted", body: `{"name": "static", "bucketName": "assets.example.com", "customResponseHeaders": ["X-Cache: {cdn_cache_status}"]}`},

		{name: "no bucket", body: `{"name": "static"}`, field: "bucketName",
			want: "bucketName is required: the Cloud Storage bucket whose objects the backend serves."},
		{name: "upper case", body: `{"name": "static", "bucketName": "My-Bucket"}`, field: "bucketName",
			want: `bucketName ("My-Bucket") is not a Cloud Storage bucket name: 3 to 63 lower-case letters, digits, dashes, underscores or dots (222 with dots, 63 between them), starting and ending with a letter or digit.`},
		{name: "too long", body: `{"name": "static", "bucketName": "a123456789012345678901234567890123456789012345678901234567890123"}`, field: "bucketName",
			want: `bucketName ("a123456789012345678901234567890123456789012345678901234567890123") is not a Cloud Storage bucket name: 3 to 63 lower-case letters, digits, dashes, underscores or dots (222 with dots, 63 between them), starting and ending with a letter or digit.`},
		{name: "empty part", body: `{"name": "static", "bucketName": "a..b"}`, field: "bucketName",
			want: `bucketName ("a..b") is not a Cloud Storage bucket name: 3 to 63 lower-case letters, digits, dashes, underscores or dots (222 with dots, 63 between them), starting and ending with a letter or digit.`},
	})
}
