# One published service, "shop", deployed in two regions. In each region a
# composite health check turns the health of the service's endpoints into
# one signal for its forwarding rule: the signal a consumer's load balancer
# would use to fail over to the other region.

locals {
  # Region one, then region two, with the ports of their endpoints.
  regions = [
    { name = "us-central1", ports = var.region_one_ports },
    { name = "us-east1", ports = var.region_two_ports },
  ]
}

# Probe GET / on each endpoint every 2 seconds. Three failures in a row make
# an endpoint UNHEALTHY: at most (3 - 1) * 2 + 1 = 5 seconds after the first
# failing probe starts. Two successes make it HEALTHY again.
resource "lbhealth_health_check" "shop" {
  count = length(local.regions)

  name                = "shop"
  region              = local.regions[count.index].name
  check_interval_sec  = 2
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 3

  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }

  log_config {
    enable = true
  }
}

resource "lbhealth_endpoint_group" "shop" {
  count = length(local.regions)

  name   = "shop"
  region = local.regions[count.index].name

  dynamic "endpoint" {
    for_each = local.regions[count.index].ports
    content {
      ip_address = "127.0.0.1"
      port       = endpoint.value
    }
  }
}

# Health sources take regional INTERNAL or INTERNAL_MANAGED services of
# GCE_VM_IP or GCE_VM_IP_PORT endpoint groups.
resource "lbhealth_backend_service" "shop" {
  count = length(local.regions)

  name                  = "shop"
  region                = local.regions[count.index].name
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.shop[count.index].self_link]

  backend {
    group = lbhealth_endpoint_group.shop[count.index].self_link
  }
}

# The published service's forwarding rule: the health destination.
resource "lbhealth_forwarding_rule" "shop" {
  count = length(local.regions)

  name                  = "shop"
  region                = local.regions[count.index].name
  load_balancing_scheme = "INTERNAL_MANAGED"
  backend_service       = lbhealth_backend_service.shop[count.index].self_link
}

# The service is healthy in a region while at least 60% of its endpoints,
# and at least two of them, are: one of three may fail, two may not.
resource "lbhealth_aggregation_policy" "shop" {
  count = length(local.regions)

  name                      = "shop"
  region                    = local.regions[count.index].name
  healthy_percent_threshold = 60
  min_healthy_threshold     = 2
}

resource "lbhealth_health_source" "shop" {
  count = length(local.regions)

  name                      = "shop"
  region                    = local.regions[count.index].name
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.shop[count.index].self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.shop[count.index].self_link
}

resource "lbhealth_composite_check" "shop" {
  count = length(local.regions)

  name               = "shop"
  region             = local.regions[count.index].name
  health_sources     = [lbhealth_health_source.shop[count.index].self_link]
  health_destination = lbhealth_forwarding_rule.shop[count.index].self_link
}
