# Instances are zonal: import by the full id (a bare name or
# {project}/{name} would not say the zone).
terraform import lbhealth_instance.web_a projects/demo-project/zones/us-central1-a/instances/web-a
