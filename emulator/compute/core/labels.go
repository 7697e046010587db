package core

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// SetLabels answers {collection}.setLabels, which the Compute API has for
// the resources with labels (addresses, forwarding rules, instances ...):
// it replaces the labels, guarded by the labelFingerprint as a PATCH is by
// the fingerprint.
func (c *Collection[T, P]) SetLabels(r *googleapi.Call) (any, error) {
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	req, err := ParseObject(body)
	if err != nil {
		return nil, err
	}
	c.s.unknownFields(r, "GlobalSetLabelsRequest", req)
	if err := checkSchema("GlobalSetLabelsRequest", req); err != nil {
		return nil, err
	}
	return c.replace(r, "setLabels", false, func(_ P, stored []byte) (P, Document, error) {
		current, _ := ParseObject(stored) // our own JSON
		sent, _ := req["labelFingerprint"].(string)
		if now, _ := current["labelFingerprint"].(string); sent != "" && sent != now {
			return nil, nil, googleapi.NewError(http.StatusPreconditionFailed, api.ReasonConditionNotMet,
				fmt.Sprintf("labelFingerprint (%q) is stale: the labels have changed since (it is now %q); GET the resource and set its labels again.", sent, now))
		}
		doc := c.withoutOutputFields(stored)
		if fp, ok := current["fingerprint"]; ok {
			doc["fingerprint"] = fp // setLabels needs no fingerprint of its own
		}
		doc["labels"] = req["labels"]
		doc["labelFingerprint"] = NewFingerprint()
		return c.decodeDocument(r, doc)
	})
}

// NewFingerprint is a fresh opaque fingerprint, base64 as the API's.
func NewFingerprint() string {
	var b [8]byte
	rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}
