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

# Wait, after an apply that made the service, until at least two of its
# endpoints are HEALTHY (two minutes at most); inside a check block a
# timeout is a warning, outside one it fails the plan or apply.
check "web_serving" {
  data "lbhealth_backend_health" "web_ready" {
    backend_service = "web"
    wait_for {
      min_healthy = 2
      timeout     = "2m"
    }
  }

  assert {
    condition     = data.lbhealth_backend_health.web_ready.healthy_count >= 2
    error_message = "web has ${data.lbhealth_backend_health.web_ready.healthy_count} healthy endpoints, want 2."
  }
}
