package dataplane

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"net/http"
	"strconv"
	"testing"
)

func testPool(policy, affinity string) *pool {
	p := &pool{policy: policy, affinity: affinity, header: "X-User", cookie: http.Cookie{Name: "session", Path: "/"}}
	for i := range 4 {
		addr := "127.0.0.1:" + strconv.Itoa(9000+i)
		p.healthy = append(p.healthy, &backend{addr: addr, id: "id" + strconv.Itoa(i)})
	}
	return p
}

func clientRequest(remote string, header ...string) request {
	return testRequest(nil, remote, "http://lb/", header...)
}

func TestPool_PoliciesWithoutAffinity(t *testing.T) {
	rr := testPool(PolicyRoundRobin, AffinityNone)
	for i := range 8 {
		if got := rr.choose(clientRequest("127.0.0.9:1")).b; got != rr.healthy[i%4] {
			t.Fatalf("ROUND_ROBIN request %d went to %s, want %s", i, got.addr, rr.healthy[i%4].addr)
		}
	}
	lr := testPool(PolicyLeastRequest, "")
	for _, b := range lr.healthy[1:] {
		b.inFlight.Store(5)
	}
	picked := 0
	for range 1000 {
		if lr.choose(clientRequest("127.0.0.9:1")).b == lr.healthy[0] {
			picked++
		}
	}
	// Of two picked at random, the idle one wins whenever it is picked:
	// 1 - (3/4)^2 = 7/16 of the time, against 1/4 at random.
	if picked < 350 { // 5 standard deviations below 437; at random it would be 250
		t.Fatalf("LEAST_REQUEST chose the idle backend %d times in 1000, want about 437", picked)
	}
	for _, policy := range []string{PolicyRandom, PolicyRingHash, PolicyMaglev} {
		seen := map[*backend]bool{}
		p := testPool(policy, "")
		for range 100 {
			seen[p.choose(clientRequest("127.0.0.9:1")).b] = true
		}
		if len(seen) != 4 {
			t.Errorf("%s without a key reached %d of 4 backends in 100 requests", policy, len(seen))
		}
	}
}

func TestPool_Affinities(t *testing.T) {
	ip := testPool(PolicyRoundRobin, AffinityClientIP)
	first := ip.choose(clientRequest("10.0.0.1:1000")).b
	for port := range 10 {
		if got := ip.choose(clientRequest("10.0.0.1:" + strconv.Itoa(2000+port))).b; got != first {
			t.Fatalf("CLIENT_IP: one client went to %s, then %s", first.addr, got.addr)
		}
	}

	cookie := testPool(PolicyRoundRobin, AffinityHTTPCookie)
	c := cookie.choose(clientRequest("10.0.0.1:1"))
	if c.cookie == nil || c.cookie.Name != "session" {
		t.Fatalf("HTTP_COOKIE: the first answer sets %v, want the cookie named by consistentHash", c.cookie)
	}
	for range 5 {
		if got := cookie.choose(clientRequest("10.0.0.2:1", "Cookie", "session="+c.cookie.Value)); got.b != c.b || got.cookie != nil {
			t.Fatalf("HTTP_COOKIE: with its cookie a client went to %s (cookie %v), want %s", got.b.addr, got.cookie, c.b.addr)
		}
	}

	gen := testPool(PolicyRoundRobin, AffinityGeneratedCookie)
	gen.cookie.Name = generatedCookie
	g := gen.choose(clientRequest("10.0.0.1:1"))
	if g.cookie == nil || g.cookie.Name != generatedCookie || g.cookie.Value != g.b.id {
		t.Fatalf("GENERATED_COOKIE: set %v for %s", g.cookie, g.b.addr)
	}
	// A cookie naming a backend that is gone picks anew and sets it again.
	again := gen.choose(clientRequest("10.0.0.1:1", "Cookie", generatedCookie+"=gone"))
	if again.cookie == nil {
		t.Fatal("GENERATED_COOKIE: a cookie of a backend that left was kept")
	}

	// STRONG_COOKIE_AFFINITY: the client stays with its backend while
	// others join and leave, and moves (with a new cookie) when it leaves.
	strong := testPool(PolicyRoundRobin, AffinityStrongCookie)
	st := strong.choose(clientRequest("10.0.0.1:1"))
	if st.cookie == nil || st.cookie.Name != "session" || st.cookie.Value != st.b.id {
		t.Fatalf("STRONG_COOKIE_AFFINITY: set %v for %s", st.cookie, st.b.addr)
	}
	withCookie := clientRequest("10.0.0.7:1", "Cookie", "session="+st.cookie.Value)
	strong.healthy = append(strong.healthy[1:], &backend{addr: "127.0.0.1:9100", id: "new"}) // st.b was healthy[0]
	if got := strong.choose(withCookie); got.b == st.b || got.cookie == nil {
		t.Fatalf("STRONG_COOKIE_AFFINITY: the cookie of a backend that left chose %v, cookie %v", got.b, got.cookie)
	}
	strong.healthy = append(strong.healthy, st.b)
	for range 5 {
		if got := strong.choose(withCookie); got.b != st.b || got.cookie != nil {
			t.Fatalf("STRONG_COOKIE_AFFINITY: with its cookie a client went to %s (cookie %v), want %s", got.b.addr, got.cookie, st.b.addr)
		}
	}

	// Rendezvous hashing: when one backend leaves, only its keys move.
	h := testPool(PolicyRingHash, AffinityHeaderField)
	before := map[string]*backend{}
	for i := range 200 {
		user := strconv.Itoa(i)
		before[user] = h.choose(clientRequest("10.0.0.1:1", "X-User", user)).b
	}
	gone := h.healthy[2]
	h.healthy = append(h.healthy[:2:2], h.healthy[3:]...)
	for user, b := range before {
		got := h.choose(clientRequest("10.0.0.1:1", "X-User", user)).b
		if b != gone && got != b {
			t.Fatalf("user %s moved from %s to %s when another backend left", user, b.addr, got.addr)
		}
	}
}

func TestPool_NoneHealthyChoosesNothing(t *testing.T) {
	p := &pool{}
	if c := p.choose(clientRequest("10.0.0.1:1")); c.b != nil {
		t.Fatalf("an empty pool chose %v", c.b)
	}
	if b := p.chooseFlow(&fakeAddr{"10.0.0.1:1"}, "TCP", true); b != nil {
		t.Fatalf("an empty pool chose %v for a flow", b)
	}
}

type fakeAddr struct{ s string }

func (a *fakeAddr) Network() string { return "tcp" }
func (a *fakeAddr) String() string  { return a.s }

func TestAffinityCookie_NamePathAndTTL(t *testing.T) {
	var none *api.AffinityCookie
	if c := affinityCookie(none, "GCLB"); c.Name != "GCLB" || c.Path != "/" || c.MaxAge != 0 || !c.HttpOnly {
		t.Errorf("no cookie settings: %+v, want GCLB on / for the session", c)
	}
	set := &api.AffinityCookie{Name: "pin", Path: "/app", TTL: &api.Duration{Seconds: 3600}}
	if c := affinityCookie(set, "GCLB"); c.Name != "pin" || c.Path != "/app" || c.MaxAge != 3600 {
		t.Errorf("cookie settings: %+v, want pin on /app for an hour", c)
	}
}
