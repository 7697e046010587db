# A global health check, by its full path:
terraform import lbhealth_health_check.http projects/demo-project/global/healthChecks/web-http

# A regional one:
terraform import lbhealth_health_check.tcp projects/demo-project/regions/us-central1/healthChecks/cache-tcp

# Or {project}/{name}, or the bare name (global first, then the provider's region):
terraform import lbhealth_health_check.grpc api-grpc
