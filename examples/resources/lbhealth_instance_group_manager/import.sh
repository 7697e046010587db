# A zonal group, by its full id (a bare name or {project}/{name} would not
# say the zone):
terraform import lbhealth_instance_group_manager.web projects/demo-project/zones/us-central1-a/instanceGroupManagers/web-mig

# A regional one, by its full id, {project}/{name}, or the bare name in the
# provider's region:
terraform import lbhealth_instance_group_manager.regional projects/demo-project/regions/us-central1/instanceGroupManagers/web-regional
