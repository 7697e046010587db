package targets

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// httpServer serves the HTTP, HTTPS and HTTP2 kinds: the same handler,
// with TLS for the last two.
type httpServer struct {
	st  *state
	srv *http.Server
	tls *tls.Config
}

func newHTTPServer(st *state, tlsCfg *tls.Config, h2Only bool) *httpServer {
	h := &httpServer{st: st, tls: tlsCfg}
	h.srv = &http.Server{
		Handler:           http.HandlerFunc(h.handle),
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       30 * time.Second,
		// Probers close with RST and half-open TLS handshakes are the
		// point of some modes: such noise belongs at debug level.
		ErrorLog: slog.NewLogLogger(st.log.Handler(), slog.LevelDebug),
	}
	if h2Only {
		// The TLS config already refuses clients without h2; this says the
		// same to net/http.
		var p http.Protocols
		p.SetHTTP2(true)
		h.srv.Protocols = &p
	}
	return h
}

func (h *httpServer) serve(ln net.Listener) {
	if h.tls != nil {
		ln = tls.NewListener(ln, h.tls)
	}
	h.srv.Serve(ln) //nolint:errcheck // returns when the target closes
}

func (h *httpServer) setMode(Mode) {}

func (h *httpServer) stop() { h.srv.Close() }

// handle answers every path the same way, so that any request_path works
// and `response = "ok"` matches. The body names the target and the address
// it was reached at: traffic through a load balancer shows where it went.
func (h *httpServer) handle(w http.ResponseWriter, r *http.Request) {
	at := ""
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		at = " at " + a.String()
	}
	h.st.probes.Add(1)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	switch h.st.mode() {
	case ModeStatus500:
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "error "+h.st.name+at+"\n")
	case ModeStatus301:
		w.Header().Set("Location", "/elsewhere")
		w.WriteHeader(http.StatusMovedPermanently)
		io.WriteString(w, "moved to /elsewhere\n")
	case ModeWrongBody:
		io.WriteString(w, "maintenance\n")
	case ModeSlow:
		select {
		case <-time.After(SlowDelay):
			io.WriteString(w, "ok "+h.st.name+at+" (slow)\n")
		case <-r.Context().Done():
			// The client gave up (or the server is closing): no answer at
			// all, not the empty 200 net/http writes for a handler that
			// returns, which a client at its deadline may still read.
			panic(http.ErrAbortHandler)
		}
	default:
		io.WriteString(w, "ok "+h.st.name+at+"\n")
	}
}
