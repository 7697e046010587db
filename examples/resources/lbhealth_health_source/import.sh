# By its full id:
terraform import lbhealth_health_source.orders projects/demo-project/regions/us-central1/healthSources/orders

# Or {project}/{name}, or the bare name (in the provider's region):
terraform import lbhealth_health_source.orders demo-project/orders
