# The defaults: a backend service is healthy while at least 60% of its
# endpoints, and at least one, are healthy. Policies are regional; this one
# is in the provider's region.
resource "lbhealth_aggregation_policy" "default" {
  name = "default-policy"
}

# Stricter: at least 75% and at least three healthy endpoints. With four
# endpoints, one may fail; with two, the service is never healthy.
resource "lbhealth_aggregation_policy" "strict" {
  name                      = "strict"
  description               = "75% and at least three"
  region                    = "us-central1"
  healthy_percent_threshold = 75
  min_healthy_threshold     = 3
}
