# Live composite health, read at every plan and refresh:
# `terraform apply -refresh-only` shows it again.
data "lbhealth_composite_health" "shop" {
  count = length(lbhealth_composite_check.shop)

  composite_check = lbhealth_composite_check.shop[count.index].id
}

# Warns (does not fail) after a plan or apply while a region is not healthy.
check "shop_healthy_everywhere" {
  assert {
    condition     = alltrue([for h in data.lbhealth_composite_health.shop : h.healthy])
    error_message = "The shop service is not healthy in every region: ${jsonencode({ for h in data.lbhealth_composite_health.shop : h.region => h.health_state })}."
  }
}

output "composite_health" {
  description = "State of the shop service's composite health check, per region."
  value       = { for h in data.lbhealth_composite_health.shop : h.region => h.health_state }
}

output "health_sources" {
  description = "State of each health source of each region's composite check."
  value = {
    for h in data.lbhealth_composite_health.shop :
    h.region => { for s in h.sources : s.source => s.health_state }
  }
}

output "serving_regions" {
  description = "The regions a failover-aware consumer would send traffic to: those whose composite is HEALTHY."
  value       = [for h in data.lbhealth_composite_health.shop : h.region if h.healthy]
}
