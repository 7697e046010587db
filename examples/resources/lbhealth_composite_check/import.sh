# By its full id:
terraform import lbhealth_composite_check.orders projects/demo-project/regions/us-central1/compositeHealthChecks/orders

# Or {project}/{name}, or the bare name (in the provider's region):
terraform import lbhealth_composite_check.orders orders
