package httpapi

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// The methods of targetPools and forwardingRules beyond the collection's
// verbs. Each changes one list (or field) of the stored resource and then
// goes through the collection's own checks, so a pool still takes at most
// one legacy HTTP check and each instance once.

// readJSON reads a request body whose schema is name into v.
func readJSON(r *http.Request, name string, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeBody(body, name, v)
}

// readPoolInstances reads the body of addInstance and removeInstance (the
// same shape): at least one instance.
func readPoolInstances(r *http.Request, verb string) (api.TargetPoolsAddInstanceRequest, error) {
	var req api.TargetPoolsAddInstanceRequest
	if err := readJSON(r, "TargetPoolsAddInstanceRequest", &req); err != nil {
		return req, err
	}
	if len(req.Instances) == 0 {
		return req, invalid("instances is empty: list the instances to %s, as {\"instance\": URL}.", verb)
	}
	return req, nil
}

// targetPoolAddInstance answers targetPools.addInstance.
func (s *Server) targetPoolAddInstance(r *http.Request) (any, error) {
	req, err := readPoolInstances(r, "add")
	if err != nil {
		return nil, err
	}
	return s.targetPools().modify(r, "addInstance", func(stored *api.TargetPool) (*api.TargetPool, error) {
		tp := cloneOf(stored)
		for i, ref := range req.Instances {
			field := fmt.Sprintf("instances[%d].instance", i)
			k, v := rules.TargetPoolInstance(field, ref.Instance)
			if v != nil {
				return nil, invalid("%s", v.Error())
			}
			if poolInstanceIndex(tp, k) >= 0 {
				return nil, invalid("%s (%q) is already an instance of target pool %s: each instance may be listed once.", field, ref.Instance, tp.Name)
			}
			tp.Instances = append(tp.Instances, ref.Instance)
		}
		return tp, nil
	})
}

// targetPoolRemoveInstance answers targetPools.removeInstance.
func (s *Server) targetPoolRemoveInstance(r *http.Request) (any, error) {
	req, err := readPoolInstances(r, "remove")
	if err != nil {
		return nil, err
	}
	return s.targetPools().modify(r, "removeInstance", func(stored *api.TargetPool) (*api.TargetPool, error) {
		tp := cloneOf(stored)
		for i, ref := range req.Instances {
			field := fmt.Sprintf("instances[%d].instance", i)
			k, v := rules.TargetPoolInstance(field, ref.Instance)
			if v != nil {
				return nil, invalid("%s", v.Error())
			}
			j := poolInstanceIndex(tp, k)
			if j < 0 {
				return nil, invalid("%s (%q) is not an instance of target pool %s.", field, ref.Instance, tp.Name)
			}
			tp.Instances = slices.Delete(tp.Instances, j, j+1)
		}
		return tp, nil
	})
}

// poolInstanceIndex is the index of the instance with key k (as
// rules.TargetPoolInstance gives it) in tp, or -1.
func poolInstanceIndex(tp *api.TargetPool, k string) int {
	return slices.IndexFunc(tp.Instances, func(inst string) bool {
		ik, v := rules.TargetPoolInstance("", inst)
		return v == nil && ik == k
	})
}

// targetPoolAddHealthCheck answers targetPools.addHealthCheck.
func (s *Server) targetPoolAddHealthCheck(r *http.Request) (any, error) {
	return s.targetPoolHealthChecks(r, "addHealthCheck")
}

// targetPoolRemoveHealthCheck answers targetPools.removeHealthCheck.
func (s *Server) targetPoolRemoveHealthCheck(r *http.Request) (any, error) {
	return s.targetPoolHealthChecks(r, "removeHealthCheck")
}

// targetPoolHealthChecks adds (op addHealthCheck) or removes the checks the
// body lists.
func (s *Server) targetPoolHealthChecks(r *http.Request, op string) (any, error) {
	var req api.TargetPoolsAddHealthCheckRequest
	if err := readJSON(r, "TargetPoolsAddHealthCheckRequest", &req); err != nil {
		return nil, err
	}
	if len(req.HealthChecks) == 0 {
		return nil, invalid("healthChecks is empty: list the checks, as {\"healthCheck\": URL}.")
	}
	sc, err := scopeOf(r)
	if err != nil {
		return nil, err
	}
	return s.targetPools().modify(r, op, func(stored *api.TargetPool) (*api.TargetPool, error) {
		tp := cloneOf(stored)
		for i, ref := range req.HealthChecks {
			field := fmt.Sprintf("healthChecks[%d].healthCheck", i)
			k, err := parseAnyRef(field, ref.HealthCheck, scope{project: sc.project}, api.CollectionHTTPHealthChecks)
			if err != nil {
				return nil, err
			}
			j := slices.IndexFunc(tp.HealthChecks, func(hc string) bool { return api.PathOf(hc) == k.Path() })
			switch {
			case op == "addHealthCheck" && j >= 0:
				return nil, invalid("%s (%q) is already the health check of target pool %s.", field, ref.HealthCheck, tp.Name)
			case op == "addHealthCheck":
				tp.HealthChecks = append(tp.HealthChecks, ref.HealthCheck)
			case j < 0:
				return nil, invalid("%s (%q) is not a health check of target pool %s.", field, ref.HealthCheck, tp.Name)
			default:
				tp.HealthChecks = slices.Delete(tp.HealthChecks, j, j+1)
			}
		}
		return tp, nil
	})
}

// forwardingRuleSetTarget answers forwardingRules.setTarget and
// globalForwardingRules.setTarget: the rule's target changes, under the
// rule's own checks (a regional rule takes a target pool of its region;
// no target the emulator models is global).
func (s *Server) forwardingRuleSetTarget(r *http.Request) (any, error) {
	var req api.TargetReference
	if err := readJSON(r, "TargetReference", &req); err != nil {
		return nil, err
	}
	if req.Target == "" {
		return nil, invalid("target is required: the URL of the rule's new target.")
	}
	return s.forwardingRules().modify(r, "setTarget", func(stored *api.ForwardingRule) (*api.ForwardingRule, error) {
		fr := cloneOf(stored)
		fr.Target = req.Target
		return fr, nil
	})
}
