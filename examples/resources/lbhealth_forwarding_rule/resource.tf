# A network load balancer: a regional rule sends traffic to a target pool.
resource "lbhealth_legacy_http_check" "nlb" {
  name = "nlb"
  port = 9000
}

resource "lbhealth_target_pool" "nlb" {
  name          = "nlb"
  region        = "us-central1"
  instances     = ["127.0.0.1:9000", "127.0.0.1:9001"]
  health_checks = [lbhealth_legacy_http_check.nlb.self_link]
}

resource "lbhealth_forwarding_rule" "nlb" {
  name       = "nlb"
  region     = "us-central1"
  ip_address = "127.0.0.1"
  port_range = "80"
  target     = lbhealth_target_pool.nlb.self_link
}

# An internal load balancer: what a composite health check reports for (its
# health destination) is a regional INTERNAL or INTERNAL_MANAGED rule.
resource "lbhealth_health_check" "internal" {
  name   = "internal"
  region = "us-central1"

  tcp_health_check {
    port = 9000
  }
}

resource "lbhealth_backend_service" "internal" {
  name                  = "internal"
  region                = "us-central1"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.internal.id]
}

resource "lbhealth_forwarding_rule" "internal" {
  name                  = "internal"
  region                = "us-central1"
  load_balancing_scheme = "INTERNAL_MANAGED"
  ip_address            = "127.0.0.2"
  port_range            = "9000"
  backend_service       = lbhealth_backend_service.internal.id
}

# Without region, a rule is global, and so must be its backend service.
resource "lbhealth_backend_service" "global" {
  name = "web-global"
}

resource "lbhealth_forwarding_rule" "global" {
  name            = "web-global"
  port_range      = "8080-8090"
  backend_service = lbhealth_backend_service.global.self_link
}
