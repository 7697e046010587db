package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// BenchmarkListAnswer: what trimming answers to the Compute API's shape
// costs a list of 500 health checks, against the same list with the
// emulator's extensions (answered as stored), side by side.
func BenchmarkListAnswer(b *testing.B) {
	srv := httpapi.New(store.NewMemory(), httpapi.Options{RootURL: "http://127.0.0.1:8686"})
	for i := range 500 {
		body := `{"name": "hc-` + strconv.Itoa(i) + `", "grpcHealthCheck": {"port": 50051}}`
		req := httptest.NewRequest("POST", "http://127.0.0.1:8686/compute/v1/projects/p/global/healthChecks", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("insert: %d %s", rec.Code, rec.Body)
		}
	}
	for _, asks := range []bool{false, true} {
		name := "ComputeShape"
		if asks {
			name = "WithExtensions"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", "http://127.0.0.1:8686/compute/v1/projects/p/global/healthChecks", nil)
				if asks {
					req.Header.Set(api.ExtensionsHeader, "true")
				}
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("list: %d", rec.Code)
				}
			}
		})
	}
}
