# A zonal group, by its full id (a bare name or {project}/{name} would not
# say the zone). A regional group imports by
# projects/{project}/regions/{region}/instanceGroupManagers/{name},
# {project}/{name}, or its bare name in the provider's region.
terraform import lbhealth_instance_group_manager.web projects/demo-project/zones/us-central1-a/instanceGroupManagers/web-mig
