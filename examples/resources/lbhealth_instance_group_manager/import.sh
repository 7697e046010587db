# Zonal groups import by their full id (regional ones by
# projects/{project}/regions/{region}/instanceGroupManagers/{name}, or the
# name in the provider's region):
terraform import lbhealth_instance_group_manager.web projects/demo-project/zones/us-central1-a/instanceGroupManagers/web-mig
