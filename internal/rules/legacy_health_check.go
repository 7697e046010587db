package rules

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// LegacyHealthCheck checks a legacy HTTP or HTTPS check as a
// client sent it. Only port says which port is probed.
func LegacyHealthCheck(hc *api.LegacyHealthCheck) Violations {
	var vs Violations
	vs.add(Name("name", hc.Name))
	vs.add(Description("description", hc.Description))
	vs.add(host("host", hc.Host))
	vs.add(requestPath("requestPath", hc.RequestPath, false))
	vs.add(optionalRange("port", hc.Port, MinPort, MaxPort))
	vs = append(vs, Timing(hc.CheckIntervalSec, hc.TimeoutSec, hc.HealthyThreshold, hc.UnhealthyThreshold)...)
	return vs
}

// LegacyDefaultPort is the default port of a legacy check collection.
func LegacyDefaultPort(collection string) int64 {
	if collection == api.CollectionHTTPSHealthChecks {
		return 443
	}
	return 80
}

// ApplyLegacyHealthCheckDefaults fills the unset fields of a valid legacy
// check of collection (httpHealthChecks or httpsHealthChecks).
func ApplyLegacyHealthCheckDefaults(hc *api.LegacyHealthCheck, collection string) {
	setDefault(&hc.Port, LegacyDefaultPort(collection))
	setDefault(&hc.CheckIntervalSec, DefaultCheckIntervalSec)
	setDefault(&hc.TimeoutSec, DefaultTimeoutSec)
	setDefault(&hc.HealthyThreshold, DefaultHealthyThreshold)
	setDefault(&hc.UnhealthyThreshold, DefaultUnhealthyThreshold)
	if hc.RequestPath == "" {
		hc.RequestPath = DefaultRequestPath
	}
}

// BackendServiceLegacyCheck checks that a backend service may use a legacy
// check (collection httpHealthChecks or httpsHealthChecks): only the
// external Application Load Balancers that are global take one, classic
// (EXTERNAL) and global external (EXTERNAL_MANAGED) alike; the regional
// external one does not, nor does any other load balancer.
func BackendServiceLegacyCheck(bs *api.BackendService, region string) *Violation {
	field := "healthChecks[0]"
	if scheme := valueOrString(bs.LoadBalancingScheme, api.SchemeExternal); scheme != api.SchemeExternal && scheme != api.SchemeExternalManaged {
		v := violation(field, "%s is a legacy health check: legacy checks are accepted only by EXTERNAL and EXTERNAL_MANAGED backend services, and %s is %s; use a health check (healthChecks) instead.",
			f(field), f("loadBalancingScheme"), scheme)
		return &v
	}
	if region != "" {
		v := violation(field, "%s is a legacy health check, which is global: a regional backend service takes a health check of its own region.", f(field))
		return &v
	}
	return nil
}

// checkKind names the kind of check a collection holds, for messages.
func checkKind(collection string) string {
	switch collection {
	case api.CollectionHTTPHealthChecks:
		return "a legacy HTTP health check"
	case api.CollectionHTTPSHealthChecks:
		return "a legacy HTTPS health check"
	case api.CollectionHealthChecks:
		return "a health check (not a legacy one)"
	}
	return "a " + collection + " resource"
}

// CheckKindMismatch is the message for a reference to the wrong kind of
// health check: legacy where a regular one is needed, or the reverse.
func CheckKindMismatch(field, ref, got, want string) Violation {
	return violation(field, "%s (%q) is %s: %s is needed here.", f(field), ref, checkKind(got), checkKind(want))
}
