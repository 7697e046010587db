# The live health of every endpoint of a backend service, read at each plan.
# backend_service takes a name, an id or a self link.
data "lbhealth_backend_health" "web" {
  backend_service = "web"
}

locals {
  web_not_healthy = [
    for e in data.lbhealth_backend_health.web.endpoints :
    "${e.ip_address}:${coalesce(e.port, 0)} is ${e.health_state} (${coalesce(e.reason, "no verdict yet")})"
    if e.health_state != "HEALTHY"
  ]
}

# Warn after every plan and apply while an endpoint of the service is not
# healthy (or it has none), saying which and why.
check "web_healthy" {
  assert {
    condition     = data.lbhealth_backend_health.web.all_healthy
    error_message = "Not every endpoint of web is healthy: ${join("; ", local.web_not_healthy)}"
  }
}

# The health of one group of a regional service.
data "lbhealth_backend_health" "grpc" {
  backend_service = "projects/demo-project/regions/us-central1/backendServices/grpc"
  group           = "projects/demo-project/regions/us-central1/networkEndpointGroups/grpc"
}
