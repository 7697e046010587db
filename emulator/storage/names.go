package storage

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// The library keeps each object as a file named by the object's name
// under its bucket's directory in the data directory, so a name with a
// "." or ".." segment would reach outside the bucket (another bucket's
// objects, or any file the emulator may write). Such names are refused
// wherever a call can give one: in the request path (the HTTP layer
// refuses those paths first), in the name query parameter of uploads, in
// the metadata of multipart and resumable uploads, and in the source
// objects of a compose.

// checkNames refuses r when it gives an object or bucket name with a "."
// or ".." segment; it leaves r's body as it found it.
func checkNames(r *http.Request) error {
	if err := checkName("name", r.URL.Query().Get("name")); err != nil {
		return err
	}
	if r.Method != http.MethodPost && r.Method != http.MethodPut || r.ContentLength == 0 {
		return nil
	}
	// Only a JSON or multipart/related body can name an object; an
	// object's bytes are left unread.
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" && mt != "multipart/related" {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return googleapi.Errorf(http.StatusRequestEntityTooLarge, "uploadTooLarge", "The request body is larger than %d bytes.", MaxObjectBytes)
	}
	return checkBodyNames(mt, params["boundary"], body)
}

// checkBodyNames checks the names a JSON body gives (an upload's metadata,
// a compose's sources), or the first part of a multipart/related upload,
// which is its metadata.
func checkBodyNames(mediaType, boundary string, body []byte) error {
	if mediaType == "multipart/related" {
		part, err := multipart.NewReader(bytes.NewReader(body), boundary).NextPart()
		if err != nil {
			return nil // the library refuses what it cannot read
		}
		if body, err = io.ReadAll(io.LimitReader(part, googleapi.MaxBodyBytes)); err != nil {
			return nil
		}
	}
	var meta struct {
		Name          string `json:"name"`
		Bucket        string `json:"bucket"`
		SourceObjects []struct {
			Name string `json:"name"`
		} `json:"sourceObjects"`
	}
	if json.Unmarshal(body, &meta) != nil {
		return nil
	}
	if err := checkName("name", meta.Name); err != nil {
		return err
	}
	if err := checkName("bucket", meta.Bucket); err != nil {
		return err
	}
	for _, s := range meta.SourceObjects {
		if err := checkName("sourceObjects[].name", s.Name); err != nil {
			return err
		}
	}
	return nil
}

// checkName refuses a name with a "." or ".." segment.
func checkName(field, name string) error {
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "." || seg == ".." {
			return googleapi.Errorf(http.StatusBadRequest, "invalid",
				"%s (%q) has a %q segment: the emulator keeps objects as files named by their names, so it refuses names with \".\" or \"..\" between slashes.", field, name, seg)
		}
	}
	return nil
}
