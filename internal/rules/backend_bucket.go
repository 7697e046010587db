package rules

import (
	"regexp"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// bucketName is a Cloud Storage bucket's name: lower-case letters, digits,
// dashes, underscores and dots, starting and ending with a letter or
// digit, 3 to 63 characters (222 with dots, each part at most 63).
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$`)

// BackendBucket checks a backend bucket as a client sent it.
func BackendBucket(b *api.BackendBucket) Violations {
	var vs Violations
	vs.add(Name("name", b.Name))
	vs.add(Description("description", b.Description))
	switch {
	case b.BucketName == "":
		vs = append(vs, violation("bucketName", "%s is required: the Cloud Storage bucket whose objects the backend serves.", f("bucketName")))
	case !validBucketName(b.BucketName):
		vs = append(vs, violation("bucketName", "%s (%q) is not a Cloud Storage bucket name: 3 to 63 lower-case letters, digits, dashes, underscores or dots (222 with dots, 63 between them), starting and ending with a letter or digit.", f("bucketName"), b.BucketName))
	}
	vs = append(vs, CustomHeaders("customResponseHeaders", b.CustomResponseHeaders)...)
	return vs
}

func validBucketName(s string) bool {
	if !bucketName.MatchString(s) || (!strings.Contains(s, ".") && len(s) > 63) {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || len(part) > 63 {
			return false
		}
	}
	return true
}
