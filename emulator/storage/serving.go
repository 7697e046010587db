package storage

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// What a load balancer's backend bucket reads of Cloud Storage (the data
// plane serves it).

// Website is the website configuration of bucket (its main page suffix
// and not-found page, "" when unset), and whether the bucket exists.
func (s *Service) Website(ctx context.Context, bucket string) (mainPage, notFound string, ok bool) {
	if _, err := s.fake.Backend().GetBucket(bucket); err != nil {
		return "", "", false
	}
	if _, b, err := s.bucket(ctx, bucket); err == nil && b.Website != nil {
		return b.Website.MainPageSuffix, b.Website.NotFoundPage, true
	}
	return "", "", true
}

// Served is an object as a load balancer answers with it.
type Served struct {
	Content                                    []byte
	ContentType, CacheControl, ContentEncoding string
	ETag                                       string
	Updated                                    time.Time
}

// Read is the object name of bucket, or false when there is none (a name
// with a "." or ".." segment names none: it would reach outside the
// bucket).
func (s *Service) Read(bucket, name string) (Served, bool) {
	if name == "" || checkName("name", name) != nil {
		return Served{}, false
	}
	o, err := s.fake.GetObject(bucket, name)
	if err != nil {
		return Served{}, false
	}
	return Served{Content: o.Content, ContentType: o.ContentType, CacheControl: o.CacheControl,
		ContentEncoding: o.ContentEncoding, ETag: entityTag(o.Md5Hash), Updated: o.Updated}, true
}

// entityTag is the ETag Cloud Storage answers an object's read with: its
// MD5 in hex, quoted ("" when the library has none).
func entityTag(md5Base64 string) string {
	sum, err := base64.StdEncoding.DecodeString(md5Base64)
	if err != nil || len(sum) == 0 {
		return ""
	}
	return `"` + hex.EncodeToString(sum) + `"`
}
