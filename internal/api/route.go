package api

// Kinds and collection of a network's static routes.
const (
	KindRoute        = "compute#route"
	KindRouteList    = "compute#routeList"
	CollectionRoutes = "routes"

	// DefaultInternetGateway is the only gateway a route's nextHopGateway
	// names.
	DefaultInternetGateway = "default-internet-gateway"
)

// Route is a static route of a network (collection routes, global):
// stored and checked. No packet follows it: instances reach nothing
// outside this machine.
type Route struct {
	Meta
	Network          string   `json:"network,omitempty"`
	DestRange        string   `json:"destRange,omitempty"`
	Priority         *int64   `json:"priority,omitempty"`
	Tags             []string `json:"tags,omitempty"`
	NextHopGateway   string   `json:"nextHopGateway,omitempty"`
	NextHopInstance  string   `json:"nextHopInstance,omitempty"`
	NextHopIP        string   `json:"nextHopIp,omitempty"`
	NextHopVPNTunnel string   `json:"nextHopVpnTunnel,omitempty"`
	NextHopILB       string   `json:"nextHopIlb,omitempty"`
	// Output: what made the route, and whether it is in use.
	RouteType   string `json:"routeType,omitempty"`
	RouteStatus string `json:"routeStatus,omitempty"`
}
