# The live health of every instance of a target pool, read at each plan.
# target_pool takes a name (in the provider's region), an id or a self link.
data "lbhealth_target_pool_health" "web" {
  target_pool = "web"
}

locals {
  web_pool_not_healthy = [
    for i in data.lbhealth_target_pool_health.web.instances :
    "${i.instance} is ${i.health_state} (${coalesce(i.reason, "no verdict yet")})"
    if i.health_state != "HEALTHY"
  ]
}

# Warn after every plan and apply while an instance of the pool is not
# healthy (or it has none), saying which and why.
check "web_pool_healthy" {
  assert {
    condition     = data.lbhealth_target_pool_health.web.all_healthy
    error_message = "Not every instance of the web pool is healthy: ${join("; ", local.web_pool_not_healthy)}"
  }
}

# The health of one instance, written as the pool lists it.
data "lbhealth_target_pool_health" "first" {
  target_pool = "projects/demo-project/regions/us-central1/targetPools/web"
  instance    = "127.0.0.1:9000"
}
