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
# health sources (here the one of the lbhealth_health_source example) is.
# A forwarding rule reports for one composite check only.
resource "lbhealth_composite_check" "orders" {
  name               = "orders"
  region             = "us-central1"
  description        = "Health of the orders service in us-central1"
  health_sources     = [lbhealth_health_source.orders.self_link]
  health_destination = lbhealth_forwarding_rule.orders.self_link
}
