# Target pools are regional: import by the full id,
terraform import lbhealth_target_pool.web projects/demo-project/regions/us-central1/targetPools/web

# or {project}/{name}, or the bare name (then in the provider's region):
terraform import lbhealth_target_pool.web web
