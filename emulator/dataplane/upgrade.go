package dataplane

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Upgrades, as Google's front ends carry them: a WebSocket opening
// handshake goes on to the backend, and once the backend accepts it the
// connection is one tunnel to that backend, its opening request judged by
// the URL map and Cloud Armor like any other; nothing after it is parsed as
// a request. Any other upgrade (h2c above all, which the front ends never
// pass) is dropped: the request goes on as a plain request, and a backend
// that switches protocols anyway, or accepts a WebSocket without the
// handshake's proof, gets a 502, so that no connection becomes a tunnel
// past the rules that the backend alone decided on.

// websocketGUID is what RFC 6455 appends to a key to prove the handshake.
const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// websocketOpening tells whether r is a WebSocket opening handshake: GET,
// "Connection: Upgrade", "Upgrade: websocket" and a key.
func websocketOpening(r *http.Request) bool {
	return r.Method == http.MethodGet && httpguts.HeaderValuesContainsToken(r.Header["Connection"], "Upgrade") &&
		strings.EqualFold(strings.TrimSpace(r.Header.Get("Upgrade")), "websocket") &&
		r.Header.Get("Sec-WebSocket-Key") != ""
}

// dropUpgrade takes the upgrade off out unless in is a WebSocket opening.
// The reverse proxy puts Connection and Upgrade back on every request
// that asked for one; without them a backend answering 101 is refused.
func dropUpgrade(in, out *http.Request) {
	if websocketOpening(in) {
		return
	}
	if out.Header.Get("Upgrade") != "" || httpguts.HeaderValuesContainsToken(out.Header["Connection"], "Upgrade") {
		out.Header.Del("Upgrade")
		out.Header.Del("Connection")
		out.Header.Del("Http2-Settings")
	}
}

// errNoHandshake is a backend's 101 without the WebSocket handshake.
var errNoHandshake = errors.New("the backend switched protocols without accepting the WebSocket handshake " +
	"(Sec-WebSocket-Accept): no tunnel is opened")

// checkSwitch refuses a 101 that does not complete the WebSocket
// handshake of the request that asked for it.
func checkSwitch(res *http.Response) error {
	key := res.Request.Header.Get("Sec-WebSocket-Key")
	if !websocketOpening(res.Request) || res.Header.Get("Sec-WebSocket-Accept") != websocketAccept(key) {
		return errNoHandshake
	}
	return nil
}

// websocketAccept is the Sec-WebSocket-Accept that answers key.
func websocketAccept(key string) string {
	sum := sha1.Sum([]byte(key + websocketGUID))
	return base64.StdEncoding.EncodeToString(sum[:])
}
