package api

import "strings"

// Meta holds the fields every resource shares. Kind, ID, SelfLink and
// CreationTimestamp are output only: the emulator ignores them on input.
type Meta struct {
	Kind              string `json:"kind,omitempty"`
	ID                uint64 `json:"id,omitempty,string"`
	CreationTimestamp string `json:"creationTimestamp,omitempty"`
	Name              string `json:"name,omitempty"`
	Description       string `json:"description,omitempty"`
	// Region is the URL of the region of a regional resource; empty for a
	// global one. The emulator derives it from the request path.
	Region string `json:"region,omitempty"`
	// Zone is the URL of the zone of a zonal resource.
	Zone     string `json:"zone,omitempty"`
	SelfLink string `json:"selfLink,omitempty"`
}

// GetMeta lets generic code reach the shared fields of any resource.
func (m *Meta) GetMeta() *Meta { return m }

// A client asks for the emulator's extensions of the API (fields the
// Compute API does not have) in answers with this header set to "true", or
// with this query parameter set to "true"; without either, answers have
// exactly the Compute API's shape.
const (
	ExtensionsHeader    = "X-Lbhealth-Extensions"
	ExtensionsParameter = "lbhealthExtensions"
)

// List is one page of a list call.
type List[T any] struct {
	Kind          string `json:"kind"`
	ID            string `json:"id,omitempty"`
	Items         []T    `json:"items"`
	NextPageToken string `json:"nextPageToken,omitempty"`
	SelfLink      string `json:"selfLink,omitempty"`
}

// KindOperation is the kind of Operation.
const KindOperation = "compute#operation"

// Operation is the answer to every mutation. The emulator applies mutations
// synchronously, so Status is always DONE.
type Operation struct {
	Kind          string          `json:"kind"`
	ID            uint64          `json:"id,string"`
	Name          string          `json:"name"`
	OperationType string          `json:"operationType"`
	TargetLink    string          `json:"targetLink"`
	TargetID      uint64          `json:"targetId,omitempty,string"`
	Status        string          `json:"status"`
	Progress      int             `json:"progress"`
	InsertTime    string          `json:"insertTime"`
	StartTime     string          `json:"startTime"`
	EndTime       string          `json:"endTime"`
	Region        string          `json:"region,omitempty"`
	Zone          string          `json:"zone,omitempty"`
	SelfLink      string          `json:"selfLink"`
	User          string          `json:"user,omitempty"`
	Error         *OperationError `json:"error,omitempty"`
}

// OperationError is the error of a failed operation (never set by the
// emulator, which answers failures with an HTTP error instead).
type OperationError struct {
	Errors []ErrorItem `json:"errors"`
}

// ErrorBody is a Google-style error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody.
type ErrorDetail struct {
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Errors  []ErrorItem `json:"errors"`
	// Status is the status word of the APIs beside Compute (IAM, Resource
	// Manager, IAP): "NOT_FOUND".
	Status string `json:"status,omitempty"`
}

// ErrorItem is one entry of ErrorDetail.Errors.
type ErrorItem struct {
	Domain  string `json:"domain,omitempty"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Error reasons used by the emulator, as the Compute API spells them.
const (
	ReasonInvalid          = "invalid"
	ReasonNotFound         = "notFound"
	ReasonAlreadyExists    = "alreadyExists"
	ReasonResourceInUse    = "resourceInUseByAnotherResource"
	ReasonConditionNotMet  = "conditionNotMet"
	ReasonRequestTooLarge  = "requestTooLarge"
	ReasonParseError       = "parseError"
	ReasonBackendError     = "backendError"
	ReasonMethodNotAllowed = "methodNotAllowed"
	// A project method asked to undo what was not done (Shared VPC's
	// disableXpnResource of a project not attached).
	ReasonInvalidResourceUsage = "invalidResourceUsage"
	// Refusals of the emulator's access checks (emulator/httpapi/guard.go).
	ReasonForbidden  = "forbidden"  // a foreign Host or Origin: 403
	ReasonRequired   = "required"   // no bearer token: 401
	ReasonAuthError  = "authError"  // a wrong bearer token: 401
	ReasonBadContent = "badContent" // a body that is not JSON: 415
)

// CollectionOf is the collection segment of a resource path
// ("projects/p/global/healthChecks/x" is in healthChecks), or "".
func CollectionOf(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return ""
	}
	j := strings.LastIndexByte(path[:i], '/')
	return path[j+1 : i]
}

// IsTrue tells whether an optional boolean field is set and true.
func IsTrue(b *bool) bool { return b != nil && *b }

// PathOf returns the "projects/..." path of a resource URL or path, or ""
// when ref has none. References are stored as URLs (self links); code that
// compares them compares paths, so the host part never matters. The last
// "projects/" counts: a client that does not take the emulator's http://
// self links for URLs (terraform-provider-google expects https://) puts
// its own base URL in front of them, and the path stays what it meant.
func PathOf(ref string) string {
	const marker = "projects/"
	for i := len(ref) - len(marker); i >= 0; i-- {
		if ref[i:i+len(marker)] == marker && (i == 0 || ref[i-1] == '/') {
			return ref[i:]
		}
	}
	return ""
}

// CollectionProvisionedProjects records, per project, that the emulator
// has given it its default network, so that a default network the user
// deletes stays deleted; Resource Manager lists these projects. It is not
// an API collection: no route serves it.
const CollectionProvisionedProjects = "lbhealthProjects"

// Health states, the one set every part of lbhealth uses: of an endpoint
// (the probe engine's verdict, UNKNOWN until its first), of a health source
// and of a composite health check (HEALTHY when its aggregation policy
// holds, UNHEALTHY when it does not, UNKNOWN while health is not yet
// known, a passing state). The Compute API's healthState of an endpoint
// has only HEALTHY and UNHEALTHY (ReasonNoVerdict says which UNHEALTHY is
// not known to be so).
const (
	StateHealthy   = "HEALTHY"
	StateUnhealthy = "UNHEALTHY"
	StateUnknown   = "UNKNOWN"
)
