# The live health of a composite health check and of its health sources,
# read at each plan and refresh. composite_check takes a name (in the
# provider's region, or region), an id or a self link.
data "lbhealth_composite_health" "orders" {
  composite_check = "projects/demo-project/regions/us-central1/compositeHealthChecks/orders"
}

# Warn after every plan and apply while the service is not healthy in
# us-central1, saying which health sources are not.
check "orders_healthy" {
  assert {
    condition = data.lbhealth_composite_health.orders.healthy
    error_message = format("orders is %s in us-central1: %s", data.lbhealth_composite_health.orders.health_state,
    join(", ", [for s in data.lbhealth_composite_health.orders.sources : "${s.source} is ${s.health_state}" if s.health_state != "HEALTHY"]))
  }
}

output "orders_health" {
  value = data.lbhealth_composite_health.orders.health_state
}

# After an apply that made the composite check, wait (a minute at most)
# until it is HEALTHY; inside a check block a timeout is a warning,
# outside one it fails the plan or apply.
check "orders_ready" {
  data "lbhealth_composite_health" "orders_now" {
    composite_check = "projects/demo-project/regions/us-central1/compositeHealthChecks/orders"
    wait_for {
      timeout = "1m"
    }
  }

  assert {
    condition     = data.lbhealth_composite_health.orders_now.healthy
    error_message = "orders is ${data.lbhealth_composite_health.orders_now.health_state}."
  }
}
