package dataplane

import (
	"slices"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A route's retryPolicy tries a request again, on a backend chosen anew,
// when an attempt ends as one of its retryConditions says: "5xx" (any 5xx
// answer, or none at all), "gateway-error" (502, 503, 504, or none),
// "connect-failure" (the backend could not be reached), "retriable-4xx"
// (409), or a gRPC status in the answer ("cancelled", "deadline-exceeded",
// "internal", "resource-exhausted", "unavailable"); at most numRetries
// times (1 unless set), each attempt within perTryTimeout, all of them
// within the route's timeout. A request with a body is not tried again:
// the data plane streams bodies rather than keeping them.

// How an attempt ended without an answer.
type attemptFailure int

const (
	answeredAttempt attemptFailure = iota // the backend answered: see its code
	unreachable                           // no connection to the backend
	noAnswer                              // connected, but no answer (reset, timeout)
)

// retries is how many times rp tries a request again at most.
func retries(rp *api.RetryPolicy) int {
	if rp == nil {
		return 0
	}
	if rp.NumRetries == nil {
		return 1
	}
	return int(max(*rp.NumRetries, 0))
}

// grpcStatuses are the gRPC status codes the retry conditions name.
var grpcStatuses = map[string]string{
	"cancelled": "1", "deadline-exceeded": "4", "resource-exhausted": "8", "internal": "13", "unavailable": "14",
}

// again tells whether an attempt that ended so (with code and gRPC status
// grpc when answered) is tried again under rp.
func again(rp *api.RetryPolicy, failure attemptFailure, code int, grpc string) bool {
	if rp == nil {
		return false
	}
	return slices.ContainsFunc(rp.RetryConditions, func(cond string) bool {
		switch cond {
		case "5xx":
			return failure != answeredAttempt || code >= 500
		case "gateway-error":
			return failure != answeredAttempt || code == 502 || code == 503 || code == 504
		case "connect-failure":
			return failure == unreachable
		case "retriable-4xx":
			return failure == answeredAttempt && code == 409
		}
		status, ok := grpcStatuses[cond]
		return ok && failure == answeredAttempt && grpc == status
	})
}

// timeouts are how long one attempt may take and all of them together:
// the route's timeout when set, else the service's timeoutSec; an attempt
// within perTryTimeout when that is shorter.
func (d *decision) timeouts(bs *api.BackendService) (perTry, total time.Duration) {
	total = backendTimeout(bs)
	if t := d.timeout; t > 0 {
		total = t
	}
	perTry = total
	if d.retry != nil {
		if t := d.retry.PerTryTimeout.Value(); t > 0 && t < total {
			perTry = t
		}
	}
	return perTry, total
}
