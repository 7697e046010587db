package dataplane

import (
	"math/rand/v2"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A route action's faultInjectionPolicy makes the data plane misbehave on
// purpose, as the cloud's proxies do, so that clients' handling of slow
// and failed answers can be tried: delay holds percentage percent of the
// requests for fixedDelay before they go on; abort answers percentage
// percent of them with httpStatus and sends them nowhere. Both may apply
// to one request: the delay comes first.

// faultAbortBody is the body of an aborted request's answer, as the cloud's
// proxies write it.
const faultAbortBody = "fault filter abort"

// rollFault decides what fi does to one request: how long to hold it, and
// the status to answer it with instead of forwarding it (0: forward it).
func rollFault(fi *api.FaultInjectionPolicy) (delay time.Duration, abort int) {
	if fi == nil {
		return 0, 0
	}
	if d := fi.Delay; d != nil && hits(d.Percentage) {
		delay = d.FixedDelay.Value()
	}
	if a := fi.Abort; a != nil && a.HTTPStatus >= 200 && a.HTTPStatus <= 599 && hits(a.Percentage) {
		abort = int(a.HTTPStatus)
	}
	return delay, abort
}

// hits is true for percent percent of the calls.
func hits(percent float64) bool { return percent >= 100 || percent > 0 && rand.Float64()*100 < percent }
