package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// apiError is an error the client caused (or a missing resource): it becomes
// a Google-style error body with its code and reason.
type apiError = googleapi.Error

// serve serves h, a method of the Compute API, of an API mounted beside
// it, or of the emulator's own endpoints, with the request as a call: the
// project it names provisioned first, a retried requestId answered as the
// first time, the change durable before the answer, the answer in the
// shape the client asked for. No handler writes a response.
func (s *Server) serve(h googleapi.Handler) http.HandlerFunc {
	h = s.compute.Idempotent(h)
	return func(w http.ResponseWriter, r *http.Request) {
		call := googleapi.NewCall(r.Context(), r.Method, r.URL.Path, r.PathValue, r.URL.Query(), r.ContentLength != 0,
			func() ([]byte, error) { return googleapi.ReadBody(r) })
		if err := s.compute.Provision(call); err != nil {
			s.writeError(w, r, err)
			return
		}
		v, err := h(call)
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			err = s.durable(r, err)
		}
		if err == nil {
			v, err = answerShape(v, wantsExtensions(r))
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		// Not the client's fault: the cause goes to the log, where the
		// message sends the user; it may hold paths of the machine.
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "error", err)
		ae = googleapi.NewError(http.StatusInternalServerError, api.ReasonBackendError, "Internal error in the emulator: see its log.")
	}
	writeJSON(w, ae.Code, api.ErrorBody{Error: api.ErrorDetail{
		Code:    ae.Code,
		Message: ae.Message,
		Errors:  []api.ErrorItem{{Domain: "global", Reason: ae.Reason, Message: ae.Message}},
		Status:  statusWord(r, ae),
	}})
}

// statusWord is the status word the APIs beside Compute give an error
// ("NOT_FOUND"): their own errors carry it as their reason; "" for the
// Compute API's paths, whose errors have none.
func statusWord(r *http.Request, ae *apiError) string {
	switch {
	case strings.HasPrefix(r.URL.Path, "/compute/") || !strings.HasPrefix(r.URL.Path, "/") || strings.HasPrefix(r.URL.Path, "/_emulator/"):
		return ""
	case ae.Reason == strings.ToUpper(ae.Reason):
		return ae.Reason
	}
	return map[int]string{http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusUnauthorized: "UNAUTHENTICATED",
		http.StatusForbidden: "PERMISSION_DENIED", http.StatusNotFound: "NOT_FOUND", http.StatusConflict: "ALREADY_EXISTS",
		http.StatusTooManyRequests: "RESOURCE_EXHAUSTED"}[ae.Code]
}

func writeJSON(w http.ResponseWriter, code int, v any) { googleapi.WriteJSON(w, code, v) }
