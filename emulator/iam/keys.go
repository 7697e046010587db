package iam

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// keysCollection is where the store keeps service account keys: their
// public part only. A key's private part is in the answer to its creation
// and nowhere else (never stored, never logged), as the API gives it once.
const keysCollection = "iam.serviceAccountKeys"

// serviceAccountKey is a service account key as the API answers it.
type serviceAccountKey struct {
	Name            string `json:"name"`
	PrivateKeyType  string `json:"privateKeyType,omitempty"`
	KeyAlgorithm    string `json:"keyAlgorithm"`
	PrivateKeyData  string `json:"privateKeyData,omitempty"`
	PublicKeyData   string `json:"publicKeyData,omitempty"`
	ValidAfterTime  string `json:"validAfterTime"`
	ValidBeforeTime string `json:"validBeforeTime"`
	KeyOrigin       string `json:"keyOrigin"`
	KeyType         string `json:"keyType"`
	Disabled        bool   `json:"disabled,omitempty"`
}

// keyBits are the algorithms a created key may have, by their size.
var keyBits = map[string]int{"KEY_ALG_RSA_2048": 2048, "KEY_ALG_RSA_1024": 1024}

// createKey is serviceAccounts.keys.create: a new RSA key, answered with
// its private part as a JSON key file (TYPE_GOOGLE_CREDENTIALS_FILE, the
// file Google's client libraries read) and its public part as a
// self-signed X.509 certificate.
func (s *Service) createKey(r *googleapi.Call) (any, error) {
	var req struct {
		KeyAlgorithm   string `json:"keyAlgorithm"`
		PrivateKeyType string `json:"privateKeyType"`
	}
	if r.HasBody() {
		if err := googleapi.ReadJSON(r, &req); err != nil {
			return nil, err
		}
	}
	if req.KeyAlgorithm == "" || req.KeyAlgorithm == "KEY_ALG_UNSPECIFIED" {
		req.KeyAlgorithm = "KEY_ALG_RSA_2048"
	}
	bits, ok := keyBits[req.KeyAlgorithm]
	if !ok {
		return nil, invalidArgument("keyAlgorithm (%q) must be KEY_ALG_RSA_2048 or KEY_ALG_RSA_1024.", req.KeyAlgorithm)
	}
	if req.PrivateKeyType == "" || req.PrivateKeyType == "TYPE_UNSPECIFIED" {
		req.PrivateKeyType = "TYPE_GOOGLE_CREDENTIALS_FILE"
	}
	if req.PrivateKeyType != "TYPE_GOOGLE_CREDENTIALS_FILE" {
		return nil, invalidArgument("privateKeyType (%q): the emulator makes TYPE_GOOGLE_CREDENTIALS_FILE keys (JSON key files) only.", req.PrivateKeyType)
	}
	sa, _, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	private, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, err
	}
	var id [20]byte
	rand.Read(id[:])
	keyID := hex.EncodeToString(id[:])
	now := time.Now().UTC().Truncate(time.Second)
	notAfter := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	cert, err := selfSigned(private, sa.UniqueID, now, notAfter)
	if err != nil {
		return nil, err
	}
	key := serviceAccountKey{
		Name:            sa.Name + "/keys/" + keyID,
		KeyAlgorithm:    req.KeyAlgorithm,
		PublicKeyData:   base64.StdEncoding.EncodeToString(cert),
		ValidAfterTime:  now.Format(time.RFC3339),
		ValidBeforeTime: notAfter.Format(time.RFC3339),
		KeyOrigin:       "GOOGLE_PROVIDED",
		KeyType:         "USER_MANAGED",
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.upsert(r, keyKey(sa, keyID), key); err != nil {
		return nil, err
	}
	file, err := credentialsFile(sa, keyID, private)
	if err != nil {
		return nil, err
	}
	key.PrivateKeyType, key.PrivateKeyData = req.PrivateKeyType, base64.StdEncoding.EncodeToString(file)
	return key, nil
}

// selfSigned is the certificate of key's public part, as the API makes
// one for each key (PEM).
func selfSigned(key *rsa.PrivateKey, subject string, notBefore, notAfter time.Time) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: subject},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// credentialsFile is the JSON key file of a key of sa, as the API writes
// it.
func credentialsFile(sa serviceAccount, keyID string, key *rsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(map[string]string{
		"type":                        "service_account",
		"project_id":                  sa.ProjectID,
		"private_key_id":              keyID,
		"private_key":                 string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":                sa.Email,
		"client_id":                   sa.UniqueID,
		"auth_uri":                    "https://accounts.google.com/o/oauth2/auth",
		"token_uri":                   "https://oauth2.googleapis.com/token",
		"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
		"client_x509_cert_url":        "https://www.googleapis.com/robot/v1/metadata/x509/" + url.PathEscape(sa.Email),
		"universe_domain":             "googleapis.com",
	}, "", "  ")
}

func keyKey(sa serviceAccount, keyID string) store.Key {
	return store.Key{Project: sa.ProjectID, Scope: "global", Collection: keysCollection, Name: sa.Email + "/" + keyID}
}

// getKey is serviceAccounts.keys.get: the key's public part, as a PEM
// certificate (publicKeyType TYPE_X509_PEM_FILE) or not at all (the
// default, TYPE_NONE).
func (s *Service) getKey(r *googleapi.Call) (any, error) {
	sa, _, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	key, err := s.loadKey(r, sa, r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	return publicPart(key, r.Query().Get("publicKeyType"))
}

// listKeys is serviceAccounts.keys.list: the account's keys, by name; with
// keyTypes, those of the types named (USER_MANAGED, SYSTEM_MANAGED).
func (s *Service) listKeys(r *googleapi.Call) (any, error) {
	sa, _, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	objects, err := s.store.All(r.Context(), keysCollection)
	if err != nil {
		return nil, err
	}
	types := r.Query()["keyTypes"]
	keys := []serviceAccountKey{}
	for _, o := range objects {
		if o.Key.Project != sa.ProjectID || !strings.HasPrefix(o.Key.Name, sa.Email+"/") {
			continue
		}
		var k serviceAccountKey
		if err := json.Unmarshal(o.Body, &k); err != nil {
			return nil, err
		}
		if len(types) == 0 || slices.Contains(types, k.KeyType) {
			k.PublicKeyData = ""
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b serviceAccountKey) int { return strings.Compare(a.Name, b.Name) })
	return map[string]any{"keys": keys}, nil
}

// deleteKey is serviceAccounts.keys.delete.
func (s *Service) deleteKey(r *googleapi.Call) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sa, _, err := s.loadServiceAccount(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("key")
	if _, err := s.loadKey(r, sa, id); err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), keyKey(sa, id)); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

func (s *Service) loadKey(r *googleapi.Call, sa serviceAccount, id string) (serviceAccountKey, error) {
	o, err := s.store.Get(r.Context(), keyKey(sa, id))
	if errors.Is(err, store.ErrNotFound) {
		return serviceAccountKey{}, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Service account key %s/keys/%s does not exist.", sa.Name, id)
	}
	if err != nil {
		return serviceAccountKey{}, err
	}
	var k serviceAccountKey
	return k, json.Unmarshal(o.Body, &k)
}

// publicPart is key as a read answers it, its public part in the form
// asked for.
func publicPart(key serviceAccountKey, publicKeyType string) (serviceAccountKey, error) {
	switch publicKeyType {
	case "", "TYPE_NONE":
		key.PublicKeyData = ""
	case "TYPE_X509_PEM_FILE":
	case "TYPE_RAW_PUBLIC_KEY":
		cert, err := base64.StdEncoding.DecodeString(key.PublicKeyData)
		if err != nil {
			return key, err
		}
		block, _ := pem.Decode(cert)
		if block == nil {
			return key, errors.New("stored certificate is not PEM")
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return key, err
		}
		key.PublicKeyData = base64.StdEncoding.EncodeToString(c.RawSubjectPublicKeyInfo)
	default:
		return key, invalidArgument("publicKeyType (%q) must be TYPE_NONE, TYPE_X509_PEM_FILE or TYPE_RAW_PUBLIC_KEY.", publicKeyType)
	}
	return key, nil
}
