# A global backend service, by its full id:
terraform import lbhealth_backend_service.web projects/demo-project/global/backendServices/web

# A regional one:
terraform import lbhealth_backend_service.grpc projects/demo-project/regions/us-central1/backendServices/grpc

# Or {project}/{name}, or the bare name (global first, then the provider's region):
terraform import lbhealth_backend_service.web web
