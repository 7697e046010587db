# A health source judges one regional INTERNAL or INTERNAL_MANAGED backend
# service of VM endpoint groups (GCE_VM_IP_PORT or GCE_VM_IP) with a policy
# of its region: here one that wants two of the three HTTP targets of
# `lbhealth-emulator targets` (127.0.0.1:9000-9002, which `make demo`
# starts) healthy.
resource "lbhealth_aggregation_policy" "two_of_three" {
  name                      = "two-of-three"
  region                    = "us-central1"
  healthy_percent_threshold = 60
  min_healthy_threshold     = 2
}

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

resource "lbhealth_health_source" "orders" {
  name                      = "orders"
  region                    = "us-central1"
  source_type               = "BACKEND_SERVICE"
  sources                   = [lbhealth_backend_service.orders.self_link]
  health_aggregation_policy = lbhealth_aggregation_policy.two_of_three.self_link
}
