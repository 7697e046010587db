# Instance groups are zonal: import by the full id (a bare name or
# {project}/{name} would not say the zone).
terraform import lbhealth_instance_group.web projects/demo-project/zones/us-central1-a/instanceGroups/web
