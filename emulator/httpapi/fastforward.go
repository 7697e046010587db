package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// fastForwardPath moves the emulator ahead by some seconds (the probes due
// in them run now; what waits on its clock comes at once): an lbhealth
// extension, for tests that would otherwise wait.
const fastForwardPath = "/_emulator/fastForward"

// maxFastForward bounds one fast-forward: its probes run one after another
// per endpoint, each up to its timeout.
const maxFastForward = time.Hour

// fastForwardAnswer is the answer of POST /_emulator/fastForward.
type fastForwardAnswer struct {
	Seconds float64 `json:"seconds"`
	Probes  int     `json:"probes"`
}

// fastForward reads {"seconds": N} and answers once the probes due in
// those seconds have run (the answer may take as long as they do).
func (s *Server) fastForward(w http.ResponseWriter, r *http.Request) {
	body, err := googleapi.ReadBody(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	doc, err := core.ParseObject(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	number, ok := doc["seconds"].(json.Number)
	seconds, err := number.Float64()
	if !ok || err != nil || len(doc) != 1 || seconds <= 0 || seconds > maxFastForward.Seconds() {
		s.writeError(w, r, googleapi.Invalid("The body must be {\"seconds\": N}, N from more than 0 to %d: how far to run the probes due.",
			int(maxFastForward.Seconds())))
		return
	}
	// The probes may take longer than the server's write timeout.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(maxFastForward + time.Minute))
	n := s.forward(r.Context(), time.Duration(seconds*float64(time.Second)))
	writeJSON(w, http.StatusOK, fastForwardAnswer{Seconds: seconds, Probes: n})
}
