package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/guard"
)

// The control API: JSON over HTTP, so that a demo script or a user with
// curl can break a target and recover it.

// TargetView is how the control API shows a target.
type TargetView struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Address string `json:"address"`
	Mode    Mode   `json:"mode"`
	Probes  int64  `json:"probes"`
	Modes   []Mode `json:"modes"` // what PUT accepts for this target
}

// View is t as the control API shows it.
func (t Target) View() TargetView {
	return TargetView{Name: t.Name, Kind: t.Kind, Address: t.Addr(), Mode: t.Mode(), Probes: t.Probes(), Modes: t.Modes()}
}

// modeRequest is the body of PUT /targets/{name} and POST .../mode.
type modeRequest struct {
	Mode *Mode `json:"mode"`
}

const maxControlBody = 4 << 10 // a mode request is a few dozen bytes

// routes is the whole API surface, in one place.
func (s *Set) routes() http.Handler {
	table := []struct {
		method, path string
		h            func(*http.Request) (any, error)
	}{
		{"GET", "/{$}", s.index},
		{"GET", "/targets", s.listTargets},
		{"GET", "/targets/{name}", s.getTarget},
		{"PUT", "/targets/{name}", s.setTargetMode},
		{"POST", "/targets/{name}/mode", s.setTargetMode},
		{"POST", "/targets/{name}/recover", s.recoverTarget},
		{"POST", "/reset", s.resetTargets},
	}
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	var paths []string
	for _, rt := range table {
		mux.Handle(rt.method+" "+rt.path, s.api(rt.h))
		if allowed[rt.path] == nil {
			paths = append(paths, rt.path)
		}
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	// A method-less pattern is less specific than the ones above, so it
	// only catches the other methods: a JSON 405 instead of the mux's
	// plain-text one.
	for _, p := range paths {
		mux.Handle(p, methodNotAllowed(allowed[p]))
	}
	mux.Handle("/", s.api(func(r *http.Request) (any, error) {
		return nil, &apiError{http.StatusNotFound, fmt.Sprintf("no route %s %s; see GET / for the routes", r.Method, r.URL.Path)}
	}))
	return mux
}

// guarded refuses, before h sees it, what a web page could send through the
// user's browser (a foreign Host, another origin, a body that is not JSON):
// the same guard as the emulator's API, for these targets are the user's
// to break, not a page's. The control API listens on loopback only, so it
// has no token.
func (s *Set) guarded(h http.Handler) http.Handler {
	g := guard.New(guard.Config{AllowedHosts: s.allowedHosts})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if no := g.Check(r); no != nil {
			s.log.Warn("control request refused", "method", r.Method, "path", r.URL.Path, "host", r.Host,
				"origin", r.Header.Get("Origin"), "remote", r.RemoteAddr, "reason", no.Reason)
			writeJSON(w, no.Status, errorBody{no.Message})
			return
		}
		h.ServeHTTP(w, r)
	})
}

func methodNotAllowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, allow)})
	})
}

func (s *Set) index(*http.Request) (any, error) {
	return map[string]any{"routes": []string{
		"GET /targets",
		"GET /targets/{name}",
		`PUT /targets/{name} {"mode": "..."}`,
		`POST /targets/{name}/mode {"mode": "..."}`,
		"POST /targets/{name}/recover",
		"POST /reset",
	}}, nil
}

func (s *Set) listTargets(*http.Request) (any, error) {
	out := make([]TargetView, len(s.targets))
	for i, t := range s.targets {
		out[i] = t.View()
	}
	return out, nil
}

func (s *Set) getTarget(r *http.Request) (any, error) {
	t, err := s.lookup(r)
	if err != nil {
		return nil, err
	}
	return t.View(), nil
}

func (s *Set) setTargetMode(r *http.Request) (any, error) {
	t, err := s.lookup(r)
	if err != nil {
		return nil, err
	}
	var req modeRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if req.Mode == nil {
		return nil, &apiError{http.StatusBadRequest, badMode(t.Kind, "").Error()}
	}
	if err := s.SetMode(t.Name, *req.Mode); err != nil {
		return nil, err
	}
	return t.View(), nil
}

func (s *Set) recoverTarget(r *http.Request) (any, error) {
	t, err := s.lookup(r)
	if err != nil {
		return nil, err
	}
	if err := s.SetMode(t.Name, ModeOK); err != nil {
		return nil, err
	}
	return t.View(), nil
}

func (s *Set) resetTargets(r *http.Request) (any, error) {
	if err := s.Reset(); err != nil {
		return nil, err
	}
	return s.listTargets(r)
}

func (s *Set) lookup(r *http.Request) (*Target, error) {
	name := r.PathValue("name")
	t, ok := s.byName[name]
	if !ok {
		return nil, s.notFound(name)
	}
	return t, nil
}

// decodeBody reads one JSON object with known fields only: a typo such as
// {"mdoe": "hang"} is an error, not a silent "no mode".
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if tooBig := new(http.MaxBytesError); errors.As(err, &tooBig) {
			return &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", tooBig.Limit)}
		}
		if errors.Is(err, io.EOF) {
			return &apiError{http.StatusBadRequest, `empty body: send {"mode": "..."}`}
		}
		return &apiError{http.StatusBadRequest, `body is not {"mode": "..."}: ` + err.Error()}
	}
	if dec.More() {
		return &apiError{http.StatusBadRequest, `body has more than one JSON value: send {"mode": "..."}`}
	}
	return nil
}

// apiError is an answer other than 200, caused by the client.
type apiError struct {
	code    int
	message string
}

func (e *apiError) Error() string { return e.message }

// errorBody is the JSON shape of every error.
type errorBody struct {
	Error string `json:"error"`
}

// api adapts a handler that returns a value or an error, so that no
// handler writes a response itself and every error has the same shape.
func (s *Set) api(h func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
		v, err := h(r)
		if err != nil {
			code := errorCode(err)
			if code == http.StatusInternalServerError {
				s.log.Error("control request failed", "method", r.Method, "path", r.URL.Path, "error", err)
			}
			writeJSON(w, code, errorBody{err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

func errorCode(err error) int {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae.code
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrBadMode):
		return http.StatusBadRequest
	case errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable
	}
	// Listening again failed: the machine's fault, not the request's.
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code, body = http.StatusInternalServerError, []byte(`{"error": "encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(append(body, '\n')) //nolint:errcheck // the client may be gone
}

// controlServer serves the control API.
type controlServer struct {
	ln     net.Listener
	srv    *http.Server
	served chan error
}

func startControl(ctx context.Context, addr string, s *Set) (*controlServer, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("control API: listen on %s: %w (pick another address with --control)", addr, err)
	}
	c := &controlServer{ln: ln, served: make(chan error, 1)}
	c.srv = &http.Server{Handler: s.guarded(s.routes()), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second}
	go func() { c.served <- c.srv.Serve(ln) }()
	return c, nil
}

func (c *controlServer) url() string { return "http://" + c.ln.Addr().String() }

func (c *controlServer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := c.srv.Shutdown(ctx)
	if serr := <-c.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
