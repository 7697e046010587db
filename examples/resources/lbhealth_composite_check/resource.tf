# The orders service in us-central1: a backend service over the three HTTP
# targets of `lbhealth-emulator targets` (127.0.0.1:9000-9002), judged by a
# health source, published through an internal forwarding rule.
resource "lbhealth_health_check" "orders" {
  name               = "orders"
  region             = "us-central1"
  check_interval_sec = 2
  timeout_sec        = 1

  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}

resource "lbhealth_endpoint_group" "orders" {
  name   = "orders"
  region = "us-central1"

  dynamic "endpoint" {
    for_each = [9000, 9001, 9002]
    content {
      ip_address = "127.0.0.1"
      port       = endpoint.value
    }
  }
}

resource "lbhealth_backend_service" "orders" {
  name                  = "orders"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.orders.self_link]

  backend {
    group = lbhealth_endpoint_group.orders.self_link
  }
}

# The region's default policy: healthy while at least 60% of the
# endpoints, and at least one, are.
resource "lbhealth_aggregation_policy" "default" {
  name   = "default-policy"
  region = "us-central1"
}

resource "lbhealth_health_source" "orders" {
  name                      = "orders"
  region                    = "us-central1"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.orders.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.default.self_link
}

# The published service's forwarding rule: the health destination. It must
# be regional, of the composite check's region, and INTERNAL or
# INTERNAL_MANAGED.
resource "lbhealth_forwarding_rule" "orders" {
  name                  = "orders"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  backend_service       = lbhealth_backend_service.orders.self_link
}

# The orders service is healthy in us-central1 while every one of its
# health sources is. A forwarding rule reports for one composite check only.
resource "lbhealth_composite_check" "orders" {
  name               = "orders"
  region             = "us-central1"
  description        = "Health of the orders service in us-central1"
  health_sources     = [lbhealth_health_source.orders.self_link]
  health_destination = lbhealth_forwarding_rule.orders.self_link
}
